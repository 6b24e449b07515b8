package metrics

import "testing"

func TestCharge(t *testing.T) {
	if got := Charge(9, 9); got != 81 {
		t.Errorf("Charge(9, 9) = %d, want 81", got)
	}
}

func TestClamp(t *testing.T) {
	if got := Clamp(17, 5, 10); got != 10 {
		t.Errorf("Clamp(17, 5, 10) = %d, want 10", got)
	}
}

func TestFinal(t *testing.T) {
	if got := Final([]int{22, 26, 2, 21}); got != 21 {
		t.Errorf("Final([22 26 2 21]) = %d, want 21", got)
	}
}

func TestAverage(t *testing.T) {
	if got := Average([]int{12, 14, 16}); got != 14 {
		t.Errorf("Average([12 14 16]) = %d, want 14", got)
	}
}

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{11, 39, 3, 27}, 3); got != 2 {
		t.Errorf("IndexOf([11 39 3 27], 3) = %d, want 2", got)
	}
}

func TestIsEven(t *testing.T) {
	if got := IsEven(32); got != true {
		t.Errorf("IsEven(32) = %v, want true", got)
	}
}
