package stats

import "testing"

func TestCost(t *testing.T) {
	if got := Cost(7, 3); got != 21 {
		t.Errorf("Cost(7, 3) = %d, want 21", got)
	}
}
