package budget

import "testing"

func TestClamp(t *testing.T) {
	if got := Clamp(25, 3, 18); got != 18 {
		t.Errorf("Clamp(25, 3, 18) = %d, want 18", got)
	}
}

func TestPrice(t *testing.T) {
	if got := Price(12, 4); got != 48 {
		t.Errorf("Price(12, 4) = %d, want 48", got)
	}
}

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{9, 11, 33, 34}, 33); got != 2 {
		t.Errorf("IndexOf([9 11 33 34], 33) = %d, want 2", got)
	}
}

func TestFinal(t *testing.T) {
	if got := Final([]int{16, 3, 19}); got != 19 {
		t.Errorf("Final([16 3 19]) = %d, want 19", got)
	}
}
