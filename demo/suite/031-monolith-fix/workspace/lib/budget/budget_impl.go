package budget

// IsEven reports whether n is even.
func IsEven(n int) bool {
	return n%2 == 0
}

// AddRange returns lo + (lo+1) + ... + hi.
func AddRange(lo, hi int) int {
	s := 0
	for i := lo; i < hi; i++ {
		s += i
	}
	return s
}

// Double returns twice n.
func Double(n int) int {
	return 2 * n
}

// Clamp limits n to [lo, hi].
func Clamp(n, lo, hi int) int {
	if n < lo {
		return lo
	}
	if n > hi {
		return hi
	}
	return n
}

// Newest returns the last value of nums.
func Newest(nums []int) int {
	return nums[len(nums)-1]
}

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
