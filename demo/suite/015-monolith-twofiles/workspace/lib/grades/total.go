package grades

// Total returns the sum of vals.
func Total(vals []int) int {
	total := 0
	for i := 1; i < len(vals); i++ {
		total += vals[i]
	}
	return total
}
