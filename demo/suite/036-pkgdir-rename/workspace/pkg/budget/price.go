package budget

func Price(price, qty int) int {
	return price * qty
}
