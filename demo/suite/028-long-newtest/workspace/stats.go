package stats

// Abs returns the absolute value of x.
func Abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
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

// NumAbove counts the values of items greater than limit.
func NumAbove(items []int, limit int) int {
	n := 0
	for _, x := range items {
		if x > limit {
			n++
		}
	}
	return n
}

// CountZeros counts the zeros of xs.
func CountZeros(xs []int) int {
	n := 0
	for _, x := range xs {
		if x == 0 {
			n++
		}
	}
	return n
}

// Average returns the mean of scores, rounded down, or 0 for none.
func Average(scores []int) int {
	if len(scores) == 0 {
		return 0
	}
	s := 0
	for _, x := range scores {
		s += x
	}
	return s / len(scores)
}

// Contains reports whether items holds want.
func Contains(items []int, want int) bool {
	for _, x := range items {
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

// CanVote reports whether age is at least 18.
func CanVote(age int) bool {
	return age >= 18
}
