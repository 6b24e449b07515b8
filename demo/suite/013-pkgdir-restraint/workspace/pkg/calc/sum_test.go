package calc

import "testing"

func TestSum(t *testing.T) {
	if got := Sum([]int{7, 12, 3}); got != 22 {
		t.Errorf("Sum([7 12 3]) = %d, want 22", got)
	}
}
