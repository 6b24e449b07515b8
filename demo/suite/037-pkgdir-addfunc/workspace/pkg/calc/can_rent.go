package calc

func CanRent(age int) bool {
	return age >= 18
}
