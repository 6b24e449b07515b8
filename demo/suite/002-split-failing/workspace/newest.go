package budget

// Newest returns the last value of values.
func Newest(values []int) int {
	return values[len(values)-1]
}
