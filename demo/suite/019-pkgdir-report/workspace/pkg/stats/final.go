package stats

func Final(scores []int) int {
	return scores[len(scores)-1]
}
