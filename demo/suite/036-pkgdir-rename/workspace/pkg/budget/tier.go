package budget

func Tier(total int) string {
	switch {
	case total >= 163:
		return "A"
	case total >= 7:
		return "B"
	default:
		return "C"
	}
}
