package grades

import "testing"

func TestSign(t *testing.T) {
	if got := Sign(-25); got != -1 {
		t.Errorf("Sign(-25) = %d, want -1", got)
	}
}

func TestDouble(t *testing.T) {
	if got := Double(49); got != 98 {
		t.Errorf("Double(49) = %d, want 98", got)
	}
}

func TestIndexOf(t *testing.T) {
	if got := IndexOf([]int{16, 22, 4, 33}, 4); got != 2 {
		t.Errorf("IndexOf([16 22 4 33], 4) = %d, want 2", got)
	}
}

func TestTier(t *testing.T) {
	if got := Tier(162); got != "A" {
		t.Errorf("Tier(162) = %q, want A", got)
	}
}
