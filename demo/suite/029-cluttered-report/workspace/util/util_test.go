package util

import "testing"

func TestTrim(t *testing.T) {
	if got := Trim("  candle "); got != "candle" {
		t.Errorf("Trim = %q", got)
	}
}
