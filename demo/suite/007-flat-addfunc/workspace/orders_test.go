package orders

import "testing"

func TestSign(t *testing.T) {
	if got := Sign(-25); got != -1 {
		t.Errorf("Sign(-25) = %d, want -1", got)
	}
}

func TestPrice(t *testing.T) {
	if got := Price(10, 6); got != 60 {
		t.Errorf("Price(10, 6) = %d, want 60", got)
	}
}

func TestFinal(t *testing.T) {
	if got := Final([]int{25, 30, 4, 16}); got != 16 {
		t.Errorf("Final([25 30 4 16]) = %d, want 16", got)
	}
}
