package orders

import "testing"

func TestCharge(t *testing.T) {
	if got := Charge(9, 9); got != 81 {
		t.Errorf("Charge(9, 9) = %d, want 81", got)
	}
}
