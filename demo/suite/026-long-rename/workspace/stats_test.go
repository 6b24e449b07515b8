package stats

import "testing"

func TestFinal(t *testing.T) {
	if got := Final([]int{8, 12, 26}); got != 26 {
		t.Errorf("Final([8 12 26]) = %d, want 26", got)
	}
}

func TestAverage(t *testing.T) {
	if got := Average([]int{4, 6, 8}); got != 6 {
		t.Errorf("Average([4 6 8]) = %d, want 6", got)
	}
}

func TestDouble(t *testing.T) {
	if got := Double(24); got != 48 {
		t.Errorf("Double(24) = %d, want 48", got)
	}
}

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{18, 30, 4, 5}, 4); got != 2 {
		t.Errorf("IndexOf([18 30 4 5], 4) = %d, want 2", got)
	}
}

func TestMin(t *testing.T) {
	if got := Min(9, 77); got != 9 {
		t.Errorf("Min(9, 77) = %d, want 9", got)
	}
}

func TestLevel(t *testing.T) {
	if got := Level(101); got != "B" {
		t.Errorf("Level(101) = %q, want B", got)
	}
}
