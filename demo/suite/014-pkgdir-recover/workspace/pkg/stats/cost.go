package stats

func Cost(unit, count int) int {
	return unit * count
}
