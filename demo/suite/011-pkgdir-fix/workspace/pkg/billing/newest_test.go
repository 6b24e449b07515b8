package billing

import "testing"

func TestNewest(t *testing.T) {
	if got := Newest([]int{6, 16, 30, 24}); got != 24 {
		t.Errorf("Newest([6 16 30 24]) = %d, want 24", got)
	}
}
