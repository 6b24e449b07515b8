package ledger

import "testing"

func TestIsAdult(t *testing.T) {
	if got := IsAdult(21); got != true {
		t.Errorf("IsAdult(21) = %v, want true", got)
	}
}

func TestMin(t *testing.T) {
	if got := Min(16, 72); got != 16 {
		t.Errorf("Min(16, 72) = %d, want 16", got)
	}
}

func TestContains(t *testing.T) {
	if got := Contains([]int{7, 24, 15}, 24); got != true {
		t.Errorf("Contains([7 24 15], 24) = %v, want true", got)
	}
}

func TestDouble(t *testing.T) {
	if got := Double(30); got != 60 {
		t.Errorf("Double(30) = %d, want 60", got)
	}
}

func TestCountZeros(t *testing.T) {
	if got := CountZeros([]int{0, 4, 0}); got != 2 {
		t.Errorf("CountZeros([0 4 0]) = %d, want 2", got)
	}
}

func TestSign(t *testing.T) {
	if got := Sign(-16); got != -1 {
		t.Errorf("Sign(-16) = %d, want -1", got)
	}
}
