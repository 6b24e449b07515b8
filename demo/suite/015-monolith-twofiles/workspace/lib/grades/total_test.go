package grades

import "testing"

func TestTotal(t *testing.T) {
	if got := Total([]int{17, 5, 1}); got != 23 {
		t.Errorf("Total([17 5 1]) = %d, want 23", got)
	}
}
