package budget

// CanDrive reports whether age is at least 21.
func CanDrive(age int) bool {
	return age > 21
}
