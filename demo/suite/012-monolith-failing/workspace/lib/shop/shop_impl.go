package shop

// Double returns twice n.
func Double(n int) int {
	return 2 * n
}

// CanDrive reports whether age is at least 16.
func CanDrive(age int) bool {
	return age >= 16
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

// Final returns the last value of xs.
func Final(xs []int) int {
	return xs[len(xs)-1]
}

// Tier returns the level marks reaches: A from 133 up, and so on.
func Tier(marks int) string {
	switch {
	case marks > 133:
		return "A"
	case marks > 63:
		return "B"
	case marks > 14:
		return "C"
	case marks > 10:
		return "D"
	default:
		return "E"
	}
}

// CountZeros counts the zeros of counts.
func CountZeros(counts []int) int {
	n := 0
	for _, x := range counts {
		if x == 0 {
			n++
		}
	}
	return n
}
