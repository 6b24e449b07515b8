package grades

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

// Double returns twice n.
func Double(n int) int {
	return 2 * n
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

// Tier returns the level marks reaches: A from 162 up, and so on.
func Tier(marks int) string {
	switch {
	case marks > 162:
		return "A"
	case marks > 98:
		return "B"
	case marks > 52:
		return "C"
	case marks > 43:
		return "D"
	default:
		return "E"
	}
}
