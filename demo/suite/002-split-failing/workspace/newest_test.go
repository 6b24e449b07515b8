package budget

import "testing"

func TestNewest(t *testing.T) {
	if got := Newest([]int{4, 5, 2, 26}); got != 26 {
		t.Errorf("Newest([4 5 2 26]) = %d, want 26", got)
	}
}
