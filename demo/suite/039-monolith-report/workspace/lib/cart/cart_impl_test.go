package cart

import "testing"

func TestCanDrive(t *testing.T) {
	if got := CanDrive(21); got != true {
		t.Errorf("CanDrive(21) = %v, want true", got)
	}
}

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{26, 8, 20, 39}, 20); got != 2 {
		t.Errorf("IndexOf([26 8 20 39], 20) = %d, want 2", got)
	}
}

func TestAbs(t *testing.T) {
	if got := Abs(-7); got != 7 {
		t.Errorf("Abs(-7) = %d, want 7", got)
	}
}

func TestAverage(t *testing.T) {
	if got := Average([]int{20, 22, 24}); got != 22 {
		t.Errorf("Average([20 22 24]) = %d, want 22", got)
	}
}

func TestLevel(t *testing.T) {
	if got := Level(133); got != "A" {
		t.Errorf("Level(133) = %q, want A", got)
	}
}
