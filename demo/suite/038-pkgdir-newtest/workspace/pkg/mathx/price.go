package mathx

func Price(rate, hours int) int {
	return rate * hours
}
