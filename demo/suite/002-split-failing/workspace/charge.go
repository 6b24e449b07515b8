package budget

// Charge returns unit times count.
func Charge(unit, count int) int {
	return unit * count
}
