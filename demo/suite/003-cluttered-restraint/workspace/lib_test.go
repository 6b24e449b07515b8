package tally

import "testing"

func TestContains(t *testing.T) {
	if got := Contains([]int{28, 16, 8}, 16); got != true {
		t.Errorf("Contains([28 16 8], 16) = %v, want true", got)
	}
}

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{40, 16, 36, 31}, 36); got != 2 {
		t.Errorf("IndexOf([40 16 36 31], 36) = %d, want 2", got)
	}
}

func TestCharge(t *testing.T) {
	if got := Charge(12, 7); got != 84 {
		t.Errorf("Charge(12, 7) = %d, want 84", got)
	}
}

func TestIsAdult(t *testing.T) {
	if got := IsAdult(21); got != true {
		t.Errorf("IsAdult(21) = %v, want true", got)
	}
}
