package orders

import "testing"

func TestCanDrive(t *testing.T) {
	if got := CanDrive(21); got != true {
		t.Errorf("CanDrive(21) = %v, want true", got)
	}
}
