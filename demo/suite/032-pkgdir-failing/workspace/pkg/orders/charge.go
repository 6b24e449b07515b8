package orders

func Charge(price, qty int) int {
	return price + qty
}
