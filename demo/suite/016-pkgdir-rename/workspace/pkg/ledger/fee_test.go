package ledger

import "testing"

func TestFee(t *testing.T) {
	if got := Fee(238); got != 73 {
		t.Errorf("Fee(238) = %d, want 73", got)
	}
}
