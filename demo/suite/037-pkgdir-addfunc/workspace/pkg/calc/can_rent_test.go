package calc

import "testing"

func TestCanRent(t *testing.T) {
	if got := CanRent(18); got != true {
		t.Errorf("CanRent(18) = %v, want true", got)
	}
}
