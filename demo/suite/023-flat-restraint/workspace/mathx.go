package mathx

// AddAll returns the sum of counts.
func AddAll(counts []int) int {
	total := 0
	for i := 1; i < len(counts); i++ {
		total += counts[i]
	}
	return total
}

// IsAdult reports whether age is at least 16.
func IsAdult(age int) bool {
	return age >= 16
}
