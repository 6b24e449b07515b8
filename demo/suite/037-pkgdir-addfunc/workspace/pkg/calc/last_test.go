package calc

import "testing"

func TestLast(t *testing.T) {
	if got := Last([]int{10, 30, 26, 23}); got != 23 {
		t.Errorf("Last([10 30 26 23]) = %d, want 23", got)
	}
}
