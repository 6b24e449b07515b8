package ledger

import "testing"

func TestContains(t *testing.T) {
	if got := Contains([]int{8, 2, 29}, 2); got != true {
		t.Errorf("Contains([8 2 29], 2) = %v, want true", got)
	}
}

func TestIsEven(t *testing.T) {
	if got := IsEven(4); got != true {
		t.Errorf("IsEven(4) = %v, want true", got)
	}
}

func TestAbs(t *testing.T) {
	if got := Abs(-38); got != 38 {
		t.Errorf("Abs(-38) = %d, want 38", got)
	}
}

func TestNewest(t *testing.T) {
	if got := Newest([]int{8, 5, 12}); got != 12 {
		t.Errorf("Newest([8 5 12]) = %d, want 12", got)
	}
}

func TestClamp(t *testing.T) {
	if got := Clamp(17, 5, 10); got != 10 {
		t.Errorf("Clamp(17, 5, 10) = %d, want 10", got)
	}
}

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{14, 1, 13, 38}, 13); got != 2 {
		t.Errorf("IndexOf([14 1 13 38], 13) = %d, want 2", got)
	}
}

func TestIsAdult(t *testing.T) {
	if got := IsAdult(21); got != true {
		t.Errorf("IsAdult(21) = %v, want true", got)
	}
}
