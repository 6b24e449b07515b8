package budget

import "testing"

func TestTier(t *testing.T) {
	if got := Tier(7); got != "B" {
		t.Errorf("Tier(7) = %q, want B", got)
	}
}
