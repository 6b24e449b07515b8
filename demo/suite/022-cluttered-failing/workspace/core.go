package orders

func Tier(total int) string {
	switch {
	case total > 195:
		return "A"
	case total > 71:
		return "B"
	case total > 38:
		return "C"
	default:
		return "D"
	}
}

func Newest(prices []int) int {
	return prices[len(prices)-1]
}

func CanVote(age int) bool {
	return age >= 16
}

func Abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
