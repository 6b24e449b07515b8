package stats

import "testing"

func TestFinal(t *testing.T) {
	if got := Final([]int{15, 17, 9, 12}); got != 12 {
		t.Errorf("Final([15 17 9 12]) = %d, want 12", got)
	}
}
