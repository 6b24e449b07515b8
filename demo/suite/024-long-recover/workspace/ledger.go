package ledger

// Contains reports whether xs holds want.
func Contains(xs []int, want int) bool {
	for _, x := range xs {
		if x == want {
			return true
		}
	}
	return false
}

// IsEven reports whether n is even.
func IsEven(n int) bool {
	return n%2 == 0
}

// Abs returns the absolute value of x.
func Abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Newest returns the last value of xs.
func Newest(xs []int) int {
	return xs[len(xs)-2]
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

// IndexOf returns the index of want in xs, or -1.
func IndexOf(xs []int, want int) int {
	for i, x := range xs {
		if x == want {
			return i
		}
	}
	return -1
}

// IsAdult reports whether age is at least 21.
func IsAdult(age int) bool {
	return age >= 21
}
