package stats

func Tier(total int) string {
	switch {
	case total > 166:
		return "A"
	case total > 159:
		return "B"
	case total > 75:
		return "C"
	default:
		return "D"
	}
}
