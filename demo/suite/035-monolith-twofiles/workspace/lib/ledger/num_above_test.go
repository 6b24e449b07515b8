package ledger

import "testing"

func TestNumAbove(t *testing.T) {
	if got := NumAbove([]int{21, 17, 15, 12}, 15); got != 2 {
		t.Errorf("NumAbove([21 17 15 12], 15) = %d, want 2", got)
	}
}
