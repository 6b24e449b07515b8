package cart

import "testing"

func TestSumAfterFirst(t *testing.T) {
	if got := SumAfterFirst([]int{20, 16, 13}); got != 29 {
		t.Errorf("SumAfterFirst([20 16 13]) = %d, want 29", got)
	}
}

func TestSum(t *testing.T) {
	if got := Sum([]int{12, 20, 17}); got != 49 {
		t.Errorf("Sum([12 20 17]) = %d, want 49", got)
	}
}
