package mathx

import "testing"

func TestCharge(t *testing.T) {
	if got := Charge(8, 8); got != 64 {
		t.Errorf("Charge(8, 8) = %d, want 64", got)
	}
}

func TestDouble(t *testing.T) {
	if got := Double(33); got != 66 {
		t.Errorf("Double(33) = %d, want 66", got)
	}
}

func TestCountZeros(t *testing.T) {
	if got := CountZeros([]int{0, 4, 0}); got != 2 {
		t.Errorf("CountZeros([0 4 0]) = %d, want 2", got)
	}
}

func TestIsEven(t *testing.T) {
	if got := IsEven(22); got != true {
		t.Errorf("IsEven(22) = %v, want true", got)
	}
}

func TestAverage(t *testing.T) {
	if got := Average([]int{5, 7, 9}); got != 7 {
		t.Errorf("Average([5 7 9]) = %d, want 7", got)
	}
}

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{17, 3, 30, 1}, 30); got != 2 {
		t.Errorf("IndexOf([17 3 30 1], 30) = %d, want 2", got)
	}
}

func TestFinal(t *testing.T) {
	if got := Final([]int{12, 20, 28, 1}); got != 1 {
		t.Errorf("Final([12 20 28 1]) = %d, want 1", got)
	}
}
