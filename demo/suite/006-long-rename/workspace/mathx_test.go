package mathx

import "testing"

func TestTax(t *testing.T) {
	if got := Tax(249); got != 51 {
		t.Errorf("Tax(249) = %d, want 51", got)
	}
}

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{6, 24, 1, 9}, 1); got != 2 {
		t.Errorf("IndexOf([6 24 1 9], 1) = %d, want 2", got)
	}
}

func TestAbs(t *testing.T) {
	if got := Abs(-7); got != 7 {
		t.Errorf("Abs(-7) = %d, want 7", got)
	}
}

func TestIsEven(t *testing.T) {
	if got := IsEven(28); got != true {
		t.Errorf("IsEven(28) = %v, want true", got)
	}
}

func TestMin(t *testing.T) {
	if got := Min(33, 99); got != 33 {
		t.Errorf("Min(33, 99) = %d, want 33", got)
	}
}

func TestCanVote(t *testing.T) {
	if got := CanVote(21); got != true {
		t.Errorf("CanVote(21) = %v, want true", got)
	}
}

func TestClamp(t *testing.T) {
	if got := Clamp(19, 3, 12); got != 12 {
		t.Errorf("Clamp(19, 3, 12) = %d, want 12", got)
	}
}
