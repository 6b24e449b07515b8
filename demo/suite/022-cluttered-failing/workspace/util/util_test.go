package util

import "testing"

func TestTrim(t *testing.T) {
	if got := Trim("  lemon "); got != "lemon" {
		t.Errorf("Trim = %q", got)
	}
}
