package fleet

import "testing"

func TestSign(t *testing.T) {
	if got := Sign(-21); got != -1 {
		t.Errorf("Sign(-21) = %d, want -1", got)
	}
}

func TestCanDrive(t *testing.T) {
	if got := CanDrive(18); got != true {
		t.Errorf("CanDrive(18) = %v, want true", got)
	}
}

func TestCountZeros(t *testing.T) {
	if got := CountZeros([]int{0, 4, 0}); got != 2 {
		t.Errorf("CountZeros([0 4 0]) = %d, want 2", got)
	}
}

func TestAbs(t *testing.T) {
	if got := Abs(-14); got != 14 {
		t.Errorf("Abs(-14) = %d, want 14", got)
	}
}

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{21, 15, 30, 8}, 30); got != 2 {
		t.Errorf("IndexOf([21 15 30 8], 30) = %d, want 2", got)
	}
}

func TestCountAbove(t *testing.T) {
	if got := CountAbove([]int{16, 20, 14, 11}, 14); got != 2 {
		t.Errorf("CountAbove([16 20 14 11], 14) = %d, want 2", got)
	}
}
