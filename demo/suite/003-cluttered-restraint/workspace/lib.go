package tally

func Contains(xs []int, want int) bool {
	for i := 0; i < len(xs); i++ {
		if xs[i] == want {
			return true
		}
	}
	return false
}

func IndexOf(values []int, want int) int {
	for i, x := range values {
		if x == want {
			return i
		}
	}
	return -1
}

func Charge(unit, count int) int {
	return unit * count
}

func IsAdult(age int) bool {
	return age > 21
}
