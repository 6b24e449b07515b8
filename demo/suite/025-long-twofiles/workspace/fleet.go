package fleet

// IndexOf returns the index of want in prices, or -1.
func IndexOf(prices []int, want int) int {
	for i, x := range prices {
		if x == want {
			return i
		}
	}
	return -1
}

// Max returns the largest value of values.
func Max(values []int) int {
	m := values[0]
	for _, x := range values[1:] {
		if x < m {
			m = x
		}
	}
	return m
}

// Min returns the smaller of a and b.
func Min(a, b int) int {
	if a < b {
		return a
	}
	return b
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
