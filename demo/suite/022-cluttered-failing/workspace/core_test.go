package orders

import "testing"

func TestTier(t *testing.T) {
	if got := Tier(195); got != "A" {
		t.Errorf("Tier(195) = %q, want A", got)
	}
}

func TestNewest(t *testing.T) {
	if got := Newest([]int{7, 6, 28, 4}); got != 4 {
		t.Errorf("Newest([7 6 28 4]) = %d, want 4", got)
	}
}

func TestCanVote(t *testing.T) {
	if got := CanVote(16); got != true {
		t.Errorf("CanVote(16) = %v, want true", got)
	}
}

func TestAbs(t *testing.T) {
	if got := Abs(-38); got != 38 {
		t.Errorf("Abs(-38) = %d, want 38", got)
	}
}
