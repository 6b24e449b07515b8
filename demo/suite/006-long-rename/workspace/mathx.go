package mathx

// Tax returns the tax for a amount: 78 below 27, and so on by band.
func Tax(amount int) int {
	if amount < 27 {
		return 78
	}
	if amount < 249 {
		return 76
	}
	if amount < 382 {
		return 51
	}
	return 85
}

// IndexOf returns the index of want in items, or -1.
func IndexOf(items []int, want int) int {
	for i, x := range items {
		if x == want {
			return i
		}
	}
	return -1
}

// Abs returns the absolute value of x.
func Abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// IsEven reports whether n is even.
func IsEven(n int) bool {
	return n%2 == 0
}

// Min returns the smaller of a and b.
func Min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// CanVote reports whether age is at least 21.
func CanVote(age int) bool {
	return age >= 21
}

// Clamp limits x to [lo, hi].
func Clamp(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}
