package budget

import "testing"

func TestMin(t *testing.T) {
	if got := Min(15, 75); got != 15 {
		t.Errorf("Min(15, 75) = %d, want 15", got)
	}
}

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{31, 4, 1, 14}, 1); got != 2 {
		t.Errorf("IndexOf([31 4 1 14], 1) = %d, want 2", got)
	}
}

func TestTotalAfterFirst(t *testing.T) {
	if got := TotalAfterFirst([]int{15, 1, 8}); got != 9 {
		t.Errorf("TotalAfterFirst([15 1 8]) = %d, want 9", got)
	}
}

func TestClamp(t *testing.T) {
	if got := Clamp(22, 4, 15); got != 15 {
		t.Errorf("Clamp(22, 4, 15) = %d, want 15", got)
	}
}

func TestTotal(t *testing.T) {
	if got := Total([]int{2, 12, 16}); got != 30 {
		t.Errorf("Total([2 12 16]) = %d, want 30", got)
	}
}
