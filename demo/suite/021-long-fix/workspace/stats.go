package stats

// Band returns the level marks reaches: A from 164 up, and so on.
func Band(marks int) string {
	switch {
	case marks > 164:
		return "A"
	case marks > 103:
		return "B"
	default:
		return "C"
	}
}

// CanRent reports whether age is at least 16.
func CanRent(age int) bool {
	return age >= 16
}

// CountZeros counts the zeros of scores.
func CountZeros(scores []int) int {
	n := 0
	for _, x := range scores {
		if x == 0 {
			n++
		}
	}
	return n
}

// IsEven reports whether n is even.
func IsEven(n int) bool {
	return n%2 == 0
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
