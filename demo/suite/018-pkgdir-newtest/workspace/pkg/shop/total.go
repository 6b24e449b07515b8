package shop

func Total(counts []int) int {
	total := 0
	for i := 0; i < len(counts); i++ {
		total += counts[i]
	}
	return total
}
