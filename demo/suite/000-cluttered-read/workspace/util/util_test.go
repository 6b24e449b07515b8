package util

import "testing"

func TestTrim(t *testing.T) {
	if got := Trim("  bridge "); got != "bridge" {
		t.Errorf("Trim = %q", got)
	}
}
