package metrics

import "testing"

func TestCountOver(t *testing.T) {
	if got := CountOver([]int{13, 11, 8, 17}, 11); got != 2 {
		t.Errorf("CountOver([13 11 8 17], 11) = %d, want 2", got)
	}
}
