package budget

import "testing"

func TestPrice(t *testing.T) {
	if got := Price(10, 7); got != 70 {
		t.Errorf("Price(10, 7) = %d, want 70", got)
	}
}
