package stats

// Final returns the last value of counts.
func Final(counts []int) int {
	return counts[len(counts)-1]
}

// Average returns the mean of vals, rounded down, or 0 for none.
func Average(vals []int) int {
	if len(vals) == 0 {
		return 0
	}
	s := 0
	for _, x := range vals {
		s += x
	}
	return s / len(vals)
}

// Double returns twice n.
func Double(n int) int {
	return 2 * n
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

// Min returns the smaller of a and b.
func Min(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// Level returns the level score reaches: A from 150 up, and so on.
func Level(score int) string {
	switch {
	case score >= 150:
		return "A"
	case score >= 101:
		return "B"
	case score >= 20:
		return "C"
	case score >= 12:
		return "D"
	default:
		return "E"
	}
}
