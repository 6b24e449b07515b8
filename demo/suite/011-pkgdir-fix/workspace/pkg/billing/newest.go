package billing

func Newest(counts []int) int {
	return counts[len(counts)-1]
}
