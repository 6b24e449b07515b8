package fleet

import "testing"

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{23, 34, 15, 35}, 15); got != 2 {
		t.Errorf("IndexOf([23 34 15 35], 15) = %d, want 2", got)
	}
}

func TestMax(t *testing.T) {
	if got := Max([]int{42, 39, 37, 21}); got != 42 {
		t.Errorf("Max([42 39 37 21]) = %d, want 42", got)
	}
}

func TestMin(t *testing.T) {
	if got := Min(17, 97); got != 17 {
		t.Errorf("Min(17, 97) = %d, want 17", got)
	}
}

func TestClamp(t *testing.T) {
	if got := Clamp(21, 3, 14); got != 14 {
		t.Errorf("Clamp(21, 3, 14) = %d, want 14", got)
	}
}
