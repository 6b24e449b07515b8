package stats

import "testing"

func TestTier(t *testing.T) {
	if got := Tier(75); got != "C" {
		t.Errorf("Tier(75) = %q, want C", got)
	}
}
