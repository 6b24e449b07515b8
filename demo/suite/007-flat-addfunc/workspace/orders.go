package orders

// Price returns rate times hours.
func Price(rate, hours int) int {
	return rate * hours
}

// Final returns the last value of values.
func Final(values []int) int {
	return values[len(values)-1]
}
