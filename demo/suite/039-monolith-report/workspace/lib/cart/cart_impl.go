package cart

// CanDrive reports whether age is at least 21.
func CanDrive(age int) bool {
	return age >= 21
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

// Abs returns the absolute value of x.
func Abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Average returns the mean of counts, rounded down, or 0 for none.
func Average(counts []int) int {
	if len(counts) == 0 {
		return 0
	}
	s := 0
	for _, x := range counts {
		s += x
	}
	return s / len(counts)
}

// Level returns the level points reaches: A from 133 up, and so on.
func Level(points int) string {
	switch {
	case points > 133:
		return "A"
	case points > 50:
		return "B"
	case points > 30:
		return "C"
	case points > 28:
		return "D"
	default:
		return "E"
	}
}
