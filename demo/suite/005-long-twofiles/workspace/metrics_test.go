package metrics

import "testing"

func TestIsEven(t *testing.T) {
	if got := IsEven(2); got != true {
		t.Errorf("IsEven(2) = %v, want true", got)
	}
}

func TestLast(t *testing.T) {
	if got := Last([]int{21, 13, 2, 29}); got != 29 {
		t.Errorf("Last([21 13 2 29]) = %d, want 29", got)
	}
}

func TestCountZeros(t *testing.T) {
	if got := CountZeros([]int{0, 4, 0}); got != 2 {
		t.Errorf("CountZeros([0 4 0]) = %d, want 2", got)
	}
}

func TestAbs(t *testing.T) {
	if got := Abs(-13); got != 13 {
		t.Errorf("Abs(-13) = %d, want 13", got)
	}
}
