package ledger

func Fee(amount int) int {
	if amount < 67 {
		return 43
	}
	if amount < 238 {
		return 42
	}
	if amount < 493 {
		return 73
	}
	return 55
}
