package stats

import "testing"

func TestAbs(t *testing.T) {
	if got := Abs(-13); got != 13 {
		t.Errorf("Abs(-13) = %d, want 13", got)
	}
}

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{15, 33, 37, 4}, 37); got != 2 {
		t.Errorf("IndexOf([15 33 37 4], 37) = %d, want 2", got)
	}
}

func TestNumAbove(t *testing.T) {
	if got := NumAbove([]int{11, 16, 20, 14}, 14); got != 2 {
		t.Errorf("NumAbove([11 16 20 14], 14) = %d, want 2", got)
	}
}

func TestCountZeros(t *testing.T) {
	if got := CountZeros([]int{0, 4, 0}); got != 2 {
		t.Errorf("CountZeros([0 4 0]) = %d, want 2", got)
	}
}

func TestAverage(t *testing.T) {
	if got := Average([]int{12, 14, 16}); got != 14 {
		t.Errorf("Average([12 14 16]) = %d, want 14", got)
	}
}

func TestContains(t *testing.T) {
	if got := Contains([]int{20, 12, 16}, 12); got != true {
		t.Errorf("Contains([20 12 16], 12) = %v, want true", got)
	}
}

func TestIsEven(t *testing.T) {
	if got := IsEven(22); got != true {
		t.Errorf("IsEven(22) = %v, want true", got)
	}
}
