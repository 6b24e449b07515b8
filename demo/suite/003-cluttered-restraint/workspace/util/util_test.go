package util

import "testing"

func TestTrim(t *testing.T) {
	if got := Trim("  stone "); got != "stone" {
		t.Errorf("Trim = %q", got)
	}
}
