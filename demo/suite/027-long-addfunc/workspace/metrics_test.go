package metrics

import "testing"

func TestIsEven(t *testing.T) {
	if got := IsEven(18); got != true {
		t.Errorf("IsEven(18) = %v, want true", got)
	}
}

func TestAverage(t *testing.T) {
	if got := Average([]int{1, 3, 5}); got != 3 {
		t.Errorf("Average([1 3 5]) = %d, want 3", got)
	}
}

func TestFinal(t *testing.T) {
	if got := Final([]int{24, 20, 21, 6}); got != 6 {
		t.Errorf("Final([24 20 21 6]) = %d, want 6", got)
	}
}

func TestCanVote(t *testing.T) {
	if got := CanVote(18); got != true {
		t.Errorf("CanVote(18) = %v, want true", got)
	}
}

func TestMin(t *testing.T) {
	if got := Min(29, 90); got != 29 {
		t.Errorf("Min(29, 90) = %d, want 29", got)
	}
}

func TestAbs(t *testing.T) {
	if got := Abs(-26); got != 26 {
		t.Errorf("Abs(-26) = %d, want 26", got)
	}
}

func TestClamp(t *testing.T) {
	if got := Clamp(18, 0, 11); got != 11 {
		t.Errorf("Clamp(18, 0, 11) = %d, want 11", got)
	}
}

func TestCountZeros(t *testing.T) {
	if got := CountZeros([]int{0, 4, 0}); got != 2 {
		t.Errorf("CountZeros([0 4 0]) = %d, want 2", got)
	}
}
