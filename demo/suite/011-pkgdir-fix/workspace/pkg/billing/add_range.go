package billing

func AddRange(lo, hi int) int {
	s := 0
	for i := lo; i < hi; i++ {
		s += i
	}
	return s
}
