package calc

import "testing"

func TestAbs(t *testing.T) {
	if got := Abs(-34); got != 34 {
		t.Errorf("Abs(-34) = %d, want 34", got)
	}
}
