package ledger

// IsAdult reports whether age is at least 21.
func IsAdult(age int) bool {
	return age > 21
}

// Min returns the smaller of a and b.
func Min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// Contains reports whether scores holds want.
func Contains(scores []int, want int) bool {
	for _, x := range scores {
		if x == want {
			return true
		}
	}
	return false
}

// Double returns twice n.
func Double(n int) int {
	return 2 * n
}

// CountZeros counts the zeros of prices.
func CountZeros(prices []int) int {
	n := 0
	for _, x := range prices {
		if x == 0 {
			n++
		}
	}
	return n
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
