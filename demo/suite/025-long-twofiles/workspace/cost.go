package fleet

// Cost returns price times qty.
func Cost(price, qty int) int {
	return price + qty
}
