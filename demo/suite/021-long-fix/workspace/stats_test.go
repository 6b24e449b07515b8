package stats

import "testing"

func TestBand(t *testing.T) {
	if got := Band(103); got != "B" {
		t.Errorf("Band(103) = %q, want B", got)
	}
}

func TestCanRent(t *testing.T) {
	if got := CanRent(16); got != true {
		t.Errorf("CanRent(16) = %v, want true", got)
	}
}

func TestCountZeros(t *testing.T) {
	if got := CountZeros([]int{0, 4, 0}); got != 2 {
		t.Errorf("CountZeros([0 4 0]) = %d, want 2", got)
	}
}

func TestIsEven(t *testing.T) {
	if got := IsEven(80); got != true {
		t.Errorf("IsEven(80) = %v, want true", got)
	}
}

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{37, 36, 21, 30}, 21); got != 2 {
		t.Errorf("IndexOf([37 36 21 30], 21) = %d, want 2", got)
	}
}
