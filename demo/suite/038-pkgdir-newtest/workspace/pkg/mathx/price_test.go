package mathx

import "testing"

func TestPrice(t *testing.T) {
	if got := Price(8, 6); got != 48 {
		t.Errorf("Price(8, 6) = %d, want 48", got)
	}
}
