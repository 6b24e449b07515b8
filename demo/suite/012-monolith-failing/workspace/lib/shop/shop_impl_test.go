package shop

import "testing"

func TestDouble(t *testing.T) {
	if got := Double(29); got != 58 {
		t.Errorf("Double(29) = %d, want 58", got)
	}
}

func TestCanDrive(t *testing.T) {
	if got := CanDrive(16); got != true {
		t.Errorf("CanDrive(16) = %v, want true", got)
	}
}

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{36, 1, 10, 5}, 10); got != 2 {
		t.Errorf("IndexOf([36 1 10 5], 10) = %d, want 2", got)
	}
}

func TestFinal(t *testing.T) {
	if got := Final([]int{28, 13, 8, 15}); got != 15 {
		t.Errorf("Final([28 13 8 15]) = %d, want 15", got)
	}
}

func TestTier(t *testing.T) {
	if got := Tier(14); got != "C" {
		t.Errorf("Tier(14) = %q, want C", got)
	}
}

func TestCountZeros(t *testing.T) {
	if got := CountZeros([]int{0, 4, 0}); got != 2 {
		t.Errorf("CountZeros([0 4 0]) = %d, want 2", got)
	}
}
