package mathx

// Charge returns price times qty.
func Charge(price, qty int) int {
	return price * qty
}

// Min returns the smaller of a and b.
func Min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// Double returns twice n.
func Double(n int) int {
	return 2 * n
}

// CountZeros counts the zeros of counts.
func CountZeros(counts []int) int {
	n := 0
	for _, x := range counts {
		if x == 0 {
			n++
		}
	}
	return n
}

// IsEven reports whether n is even.
func IsEven(n int) bool {
	return n%2 == 0
}

// Average returns the mean of xs, rounded down, or 0 for none.
func Average(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := 0
	for _, x := range xs {
		s += x
	}
	return s / len(xs)
}

// IndexOf returns the index of want in values, or -1.
func IndexOf(values []int, want int) int {
	for i, x := range values {
		if x == want {
			return i
		}
	}
	return -1
}

// Final returns the last value of nums.
func Final(nums []int) int {
	return nums[len(nums)-1]
}
