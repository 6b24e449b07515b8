package mathx

import "testing"

func TestAddAll(t *testing.T) {
	if got := AddAll([]int{5, 8, 11}); got != 24 {
		t.Errorf("AddAll([5 8 11]) = %d, want 24", got)
	}
}

func TestIsAdult(t *testing.T) {
	if got := IsAdult(16); got != true {
		t.Errorf("IsAdult(16) = %v, want true", got)
	}
}
