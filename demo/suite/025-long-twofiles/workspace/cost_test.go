package fleet

import "testing"

func TestCost(t *testing.T) {
	if got := Cost(10, 5); got != 50 {
		t.Errorf("Cost(10, 5) = %d, want 50", got)
	}
}
