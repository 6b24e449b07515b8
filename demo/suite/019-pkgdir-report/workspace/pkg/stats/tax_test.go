package stats

import "testing"

func TestTax(t *testing.T) {
	if got := Tax(410); got != 15 {
		t.Errorf("Tax(410) = %d, want 15", got)
	}
}
