package budget

import "testing"

func TestCountZeros(t *testing.T) {
	if got := CountZeros([]int{0, 4, 0}); got != 2 {
		t.Errorf("CountZeros([0 4 0]) = %d, want 2", got)
	}
}

func TestSurcharge(t *testing.T) {
	if got := Surcharge(124); got != 58 {
		t.Errorf("Surcharge(124) = %d, want 58", got)
	}
}

func TestPrice(t *testing.T) {
	if got := Price(8, 6); got != 48 {
		t.Errorf("Price(8, 6) = %d, want 48", got)
	}
}
