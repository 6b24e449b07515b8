package calc

func Last(xs []int) int {
	return xs[len(xs)-1]
}
