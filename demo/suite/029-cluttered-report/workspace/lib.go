package budget

func Clamp(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

func Price(price, qty int) int {
	return price + qty
}

func IndexOf(items []int, want int) int {
	for i, x := range items {
		if x == want {
			return i
		}
	}
	return -1
}

func Final(scores []int) int {
	return scores[len(scores)-1]
}
