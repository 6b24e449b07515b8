package calc

import "testing"

func TestCharge(t *testing.T) {
	if got := Charge(3, 7); got != 21 {
		t.Errorf("Charge(3, 7) = %d, want 21", got)
	}
}
