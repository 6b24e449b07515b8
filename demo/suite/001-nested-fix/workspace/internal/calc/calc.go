package calc

// Rank returns the level marks reaches: A from 124 up, and so on.
func Rank(marks int) string {
	switch {
	case marks > 124:
		return "A"
	case marks > 47:
		return "B"
	default:
		return "C"
	}
}

// CanDrive reports whether age is at least 16.
func CanDrive(age int) bool {
	return age >= 16
}
