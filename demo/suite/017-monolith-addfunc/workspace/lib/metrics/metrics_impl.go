package metrics

// Charge returns unit times count.
func Charge(unit, count int) int {
	return unit * count
}

// Clamp limits v to [lo, hi].
func Clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// Final returns the last value of scores.
func Final(scores []int) int {
	return scores[len(scores)-1]
}

// Average returns the mean of xs, rounded down, or 0 for none.
func Average(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	s := 0
	for _, x := range xs {
		s += x
	}
	return s / len(xs)
}

// IsEven reports whether n is even.
func IsEven(n int) bool {
	return n%2 == 0
}
