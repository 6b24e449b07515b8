package budget

import "testing"

func TestIsEven(t *testing.T) {
	if got := IsEven(74); got != true {
		t.Errorf("IsEven(74) = %v, want true", got)
	}
}

func TestAddRange(t *testing.T) {
	if got := AddRange(3, 8); got != 33 {
		t.Errorf("AddRange(3, 8) = %d, want 33", got)
	}
}

func TestDouble(t *testing.T) {
	if got := Double(19); got != 38 {
		t.Errorf("Double(19) = %d, want 38", got)
	}
}

func TestClamp(t *testing.T) {
	if got := Clamp(24, 1, 17); got != 17 {
		t.Errorf("Clamp(24, 1, 17) = %d, want 17", got)
	}
}

func TestNewest(t *testing.T) {
	if got := Newest([]int{21, 28, 26}); got != 26 {
		t.Errorf("Newest([21 28 26]) = %d, want 26", got)
	}
}

func TestSign(t *testing.T) {
	if got := Sign(-3); got != -1 {
		t.Errorf("Sign(-3) = %d, want -1", got)
	}
}
