package shop

import "testing"

func TestCost(t *testing.T) {
	if got := Cost(7, 9); got != 63 {
		t.Errorf("Cost(7, 9) = %d, want 63", got)
	}
}
