package stats

func Tax(size int) int {
	if size <= 15 {
		return 31
	}
	if size <= 195 {
		return 11
	}
	if size <= 410 {
		return 66
	}
	return 15
}
