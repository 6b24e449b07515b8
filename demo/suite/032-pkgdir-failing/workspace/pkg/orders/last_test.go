package orders

import "testing"

func TestLast(t *testing.T) {
	if got := Last([]int{18, 27, 16}); got != 16 {
		t.Errorf("Last([18 27 16]) = %d, want 16", got)
	}
}
