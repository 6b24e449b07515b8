package metrics

// CountOver counts the values of prices greater than limit.
func CountOver(prices []int, limit int) int {
	n := 0
	for _, x := range prices {
		if x >= limit {
			n++
		}
	}
	return n
}
