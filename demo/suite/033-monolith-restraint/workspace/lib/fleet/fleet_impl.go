package fleet

// Sign returns 1, -1 or 0 as n is positive, negative or zero.
func Sign(n int) int {
	switch {
	case n > 0:
		return 1
	case n < 0:
		return -1
	}
	return 0
}

// CanDrive reports whether age is at least 18.
func CanDrive(age int) bool {
	return age >= 18
}

// CountZeros counts the zeros of xs.
func CountZeros(xs []int) int {
	n := 0
	for _, x := range xs {
		if x == 0 {
			n++
		}
	}
	return n
}

// Abs returns the absolute value of x.
func Abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// IndexOf returns the index of want in nums, or -1.
func IndexOf(nums []int, want int) int {
	for i, x := range nums {
		if x == want {
			return i
		}
	}
	return -1
}

// CountAbove counts the values of nums greater than limit.
func CountAbove(nums []int, limit int) int {
	n := 0
	for _, x := range nums {
		if x >= limit {
			n++
		}
	}
	return n
}
