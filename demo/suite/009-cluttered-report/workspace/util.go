package budget

func CountZeros(values []int) int {
	n := 0
	for _, x := range values {
		if x == 0 {
			n++
		}
	}
	return n
}

func Surcharge(amount int) int {
	if amount <= 65 {
		return 50
	}
	if amount <= 124 {
		return 40
	}
	if amount <= 488 {
		return 58
	}
	return 57
}

func Price(unit, count int) int {
	return unit * count
}
