package budget

// Min returns the smaller of a and b.
func Min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// IndexOf returns the index of want in prices, or -1.
func IndexOf(prices []int, want int) int {
	for i, x := range prices {
		if x == want {
			return i
		}
	}
	return -1
}

// TotalAfterFirst returns the sum of counts without its first value.
func TotalAfterFirst(counts []int) int {
	total := 0
	for i := 1; i < len(counts); i++ {
		total += counts[i]
	}
	return total
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

// Total returns the sum of counts.
func Total(counts []int) int {
	total := 0
	for i := 1; i < len(counts); i++ {
		total += counts[i]
	}
	return total
}
