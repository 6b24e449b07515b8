package ledger

import "testing"

func TestCanVote(t *testing.T) {
	if got := CanVote(18); got != true {
		t.Errorf("CanVote(18) = %v, want true", got)
	}
}
