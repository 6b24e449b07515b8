package metrics

// IsEven reports whether n is even.
func IsEven(n int) bool {
	return n%2 == 0
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

// Final returns the last value of scores.
func Final(scores []int) int {
	return scores[len(scores)-1]
}

// CanVote reports whether age is at least 18.
func CanVote(age int) bool {
	return age >= 18
}

// Min returns the smaller of a and b.
func Min(a, b int) int {
	if a < b {
		return a
	}
	return b
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

// CountZeros counts the zeros of values.
func CountZeros(values []int) int {
	n := 0
	for _, x := range values {
		if x == 0 {
			n++
		}
	}
	return n
}
