package billing

import "testing"

func TestAddRange(t *testing.T) {
	if got := AddRange(4, 8); got != 30 {
		t.Errorf("AddRange(4, 8) = %d, want 30", got)
	}
}
