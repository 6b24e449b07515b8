package calc

func Charge(price, qty int) int {
	return price * qty
}
