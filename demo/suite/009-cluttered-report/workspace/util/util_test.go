package util

import "testing"

func TestTrim(t *testing.T) {
	if got := Trim("  paper "); got != "paper" {
		t.Errorf("Trim = %q", got)
	}
}
