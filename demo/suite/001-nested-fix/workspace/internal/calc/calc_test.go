package calc

import "testing"

func TestRank(t *testing.T) {
	if got := Rank(47); got != "B" {
		t.Errorf("Rank(47) = %q, want B", got)
	}
}

func TestCanDrive(t *testing.T) {
	if got := CanDrive(16); got != true {
		t.Errorf("CanDrive(16) = %v, want true", got)
	}
}
