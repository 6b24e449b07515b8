package stats

import "testing"

func TestCanDrive(t *testing.T) {
	if got := CanDrive(16); got != true {
		t.Errorf("CanDrive(16) = %v, want true", got)
	}
}
