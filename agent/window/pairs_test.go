package window

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
)

func TestValidatePairs(t *testing.T) {
	sys, user := msg("system", "s"), msg("user", "u")
	tests := []struct {
		name string
		h    []chat.Message
		want *PairError
	}{
		{"empty", nil, nil},
		{"plain", []chat.Message{sys, user, msg("assistant", "a")}, nil},
		{"parallel", []chat.Message{sys, user, callMsg("c1", "c2"), resultMsg("c2", ""), resultMsg("c1", "")}, nil},
		{"orphan", []chat.Message{sys, user, resultMsg("c1", "")}, &PairError{Index: 2, Orphan: "c1"}},
		{"answered twice", []chat.Message{user, callMsg("c1"), resultMsg("c1", ""), resultMsg("c1", "")}, &PairError{Index: 3, Orphan: "c1"}},
		{"no id", []chat.Message{user, resultMsg("", "")}, &PairError{Index: 1, Orphan: `""`}},
		{"unanswered at end", []chat.Message{user, callMsg("c2", "c1")}, &PairError{Index: 2, Unanswered: []string{"c1", "c2"}}},
		{"unanswered before user", []chat.Message{user, callMsg("c1"), user, resultMsg("c1", "")}, &PairError{Index: 2, Unanswered: []string{"c1"}}},
		{"duplicate id", []chat.Message{user, callMsg("c1", "c1")}, &PairError{Index: 1, Duplicate: "c1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidatePairs(tt.h)
			var got *PairError
			if err != nil && !errors.As(err, &got) {
				t.Fatalf("ValidatePairs = %v, not a *PairError", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ValidatePairs(%s) mismatch (-want +got):\n%s", shape(tt.h), diff)
			}
		})
	}
}

// historyFromBytes builds a history from fuzz input: each byte picks a
// message kind and a call id.
func historyFromBytes(b []byte) []chat.Message {
	h := []chat.Message{msg("system", "s")}
	for _, x := range b {
		id := string(rune('a' + x>>3%4))
		switch x % 5 {
		case 0:
			h = append(h, msg("user", "u"))
		case 1:
			h = append(h, msg("assistant", "a"))
		case 2:
			h = append(h, callMsg(id))
		case 3:
			h = append(h, callMsg(id, id+"2"))
		case 4:
			h = append(h, resultMsg(id, "r"))
		}
	}
	return h
}

// keepLast cuts h as a compaction does (cutPoint), each message counted
// as one token and the newest n kept: it returns the system message and
// the messages from the cut on, or h when there is nothing to cut.
func keepLast(t testing.TB, h []chat.Message, n int, cut CutAt) []chat.Message {
	t.Helper()
	m := New(Config{System: h[0], Counter: noText{}, Overhead: 1, KeepRecent: n, ToolCap: -1})
	for _, x := range h[1:] {
		if err := m.Append(x); err != nil {
			t.Fatal(err)
		}
	}
	at := m.cutPoint(cut)
	if at == 0 {
		return h
	}
	return append([]chat.Message{h[0]}, h[at:]...)
}

// noText counts no tokens for any text.
type noText struct{}

func (noText) Count(string) int { return 0 }

// FuzzValidatePairs: the validator never panics, and cutting a valid
// history as a compaction does keeps it valid.
func FuzzValidatePairs(f *testing.F) {
	f.Add([]byte{0, 2, 4, 1, 0, 3, 4})
	f.Add([]byte{0, 18, 20, 4, 0})
	f.Add([]byte{4, 4, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		h := historyFromBytes(b)
		if ValidatePairs(h) != nil {
			return
		}
		for n := range len(h) + 1 {
			for _, cut := range []CutAt{AtUser, AtAssistant} {
				if kept := keepLast(t, h, n, cut); ValidatePairs(kept) != nil {
					t.Fatalf("keepLast(%s, %d, %d) = %s: %v", shape(h), n, cut, shape(kept), ValidatePairs(kept))
				}
			}
		}
	})
}
