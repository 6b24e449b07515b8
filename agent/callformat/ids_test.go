package callformat

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
)

func TestRemapIDs(t *testing.T) {
	history := []chat.Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []chat.ToolCall{call("dup", "a", "{}"), call("dup", "b", "{}"), call("", "c", "{}"), call("good12345", "d", "{}")}},
		{Role: "tool", ToolCallID: "dup", Content: "ra"},
		{Role: "tool", ToolCallID: "dup", Content: "rb"},
		{Role: "tool", ToolCallID: "good12345", Content: "rd"},
		{Role: "tool", ToolCallID: "orphan", Content: "ro"},
		{Role: "assistant", ToolCalls: []chat.ToolCall{call("dup", "e", "{}")}},
		{Role: "tool", ToolCallID: "dup", Content: "re"},
	}
	f := testFormat(t, "mistral")
	got := RemapIDs(history, f, rand.New(rand.NewPCG(2, 2)))
	a, b, c, d := got[1].ToolCalls[0].ID, got[1].ToolCalls[1].ID, got[1].ToolCalls[2].ID, got[1].ToolCalls[3].ID
	e := got[6].ToolCalls[0].ID
	ids := map[string]bool{}
	for _, id := range []string{a, b, c, e} {
		if !f.ValidID(id) || ids[id] {
			t.Errorf("RemapIDs: id %q not valid or repeated in %v", id, got)
		}
		ids[id] = true
	}
	if d != "good12345" {
		t.Errorf("RemapIDs changed the valid id good12345 to %q", d)
	}
	want := []string{a, b, d}
	for i, m := range got[2:5] {
		if m.ToolCallID != want[i] {
			t.Errorf("result %d (%s) has id %q, want %q", i, m.Content, m.ToolCallID, want[i])
		}
	}
	if o := got[5].ToolCallID; !f.ValidID(o) || ids[o] {
		t.Errorf("orphan result id %q", o)
	}
	if got[7].ToolCallID != e {
		t.Errorf("second turn's result has id %q, want %q", got[7].ToolCallID, e)
	}
	if history[1].ToolCalls[0].ID != "dup" || history[2].ToolCallID != "dup" {
		t.Errorf("RemapIDs changed its input")
	}
}

func TestOrderResults(t *testing.T) {
	calls := []chat.ToolCall{call("a", "f", "{}"), call("b", "f", "{}"), call("c", "f", "{}")}
	res := func(ids ...string) []chat.Message {
		var out []chat.Message
		for _, id := range ids {
			out = append(out, chat.Message{Role: "tool", ToolCallID: id, Content: "r" + id})
		}
		return out
	}
	tests := []struct {
		name    string
		calls   []chat.ToolCall
		results []chat.Message
		want    []chat.Message
		wantErr bool
	}{
		{"in order", calls, res("a", "b", "c"), res("a", "b", "c"), false},
		{"reversed", calls, res("c", "b", "a"), res("a", "b", "c"), false},
		{"shuffled", calls, res("b", "c", "a"), res("a", "b", "c"), false},
		{"none", nil, nil, []chat.Message{}, false},
		{"missing", calls, res("a", "c"), nil, true},
		{"unknown", calls, res("a", "b", "c", "d"), nil, true},
		{"twice", calls, res("a", "b", "b", "c"), nil, true},
		{"duplicate call ids", []chat.ToolCall{call("x1", "f", "{}"), call("x1", "g", "{}")}, res("x1", "x1"), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := chat.OrderResults(tt.calls, tt.results)
			if (err != nil) != tt.wantErr {
				t.Fatalf("chat.OrderResults(%v, %v) error = %v, want error %v", tt.calls, tt.results, err, tt.wantErr)
			}
			var e *chat.Error
			if err != nil && !errors.As(err, &e) {
				t.Errorf("error %v is not an *Error", err)
			}
			if diff := cmp.Diff(tt.want, got); err == nil && diff != "" {
				t.Errorf("chat.OrderResults(%v, %v) (-want +got):\n%s", tt.calls, tt.results, diff)
			}
		})
	}
}

// TestFitIDs: a history whose ids fit is returned as it is; one with a
// 32-character id gets Mistral ids, the same for the same history, and
// the same for a history that grew by a reply and its result.
func TestFitIDs(t *testing.T) {
	const long = "760izblm3iA8z54miRDQttP6bf5d1OuD"
	mistral := testFormat(t, "mistral")
	history := []chat.Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []chat.ToolCall{call(long, "a", "{}"), call("good12345", "b", "{}")}},
		{Role: "tool", ToolCallID: long, Content: "ra"},
		{Role: "tool", ToolCallID: "good12345", Content: "rb"},
	}
	if got, n := FitIDs(history, testFormat(t, "hermes")); n != 0 || !cmp.Equal(got, history) {
		t.Errorf("FitIDs for hermes = %+v, %d renamed; want the history, 0", got, n)
	}
	got, n := FitIDs(history, mistral)
	id := got[1].ToolCalls[0].ID
	if n != 1 || !mistral.ValidID(id) || got[2].ToolCallID != id || got[1].ToolCalls[1].ID != "good12345" {
		t.Fatalf("FitIDs for mistral = %+v, %d renamed", got, n)
	}
	grown := append(slices.Clone(history),
		chat.Message{Role: "assistant", ToolCalls: []chat.ToolCall{call("x1y2z3w4v", "a", "{}")}},
		chat.Message{Role: "tool", ToolCallID: "x1y2z3w4v", Content: "rc"})
	if again, _ := FitIDs(grown, mistral); !cmp.Equal(again[:len(got)], got) {
		t.Errorf("FitIDs of the grown history = %+v, want it to start with %+v", again, got)
	}
}

// TestUniqueIDs feeds a Mistral reply that reuses the history's ids: the
// one the caller holds, the one the model was shown for it (FitIDs), and
// another of the history; repeats an id of its own; and writes one new
// id. Only the new id stays, the others get new ids, and the deltas and
// Finish agree.
func TestUniqueIDs(t *testing.T) {
	const long = "760izblm3iA8z54miRDQttP6bf5d1OuD"
	f := testFormat(t, "mistral")
	history := []chat.Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []chat.ToolCall{call(long, "read_file", "{}"), call("old123456", "read_file", "{}")}},
		{Role: "tool", ToolCallID: long, Content: "ra"},
		{Role: "tool", ToolCallID: "old123456", Content: "rb"},
	}
	fitted, _ := FitIDs(history, f)
	shown := fitted[1].ToolCalls[0].ID
	written := []string{shown, "old123456", long, "new123456", "new123456"}
	var items []string
	for _, id := range written {
		items = append(items, `{"name": "read_file", "arguments": {"path": "a"}, "id": "`+id+`"}`)
	}
	reply := "[TOOL_CALLS][" + strings.Join(items, ", ") + "]"
	p := UniqueIDs(f.Stream(), f, rand.New(rand.NewPCG(3, 3)), history)
	var streamed []string
	for i := 0; i < len(reply); i += 7 {
		for _, d := range p.Feed(reply[i:min(i+7, len(reply))]) {
			if d.Call != nil && d.Call.ID != "" {
				streamed = append(streamed, d.Call.ID)
			}
		}
	}
	var got []string
	for _, c := range p.Finish().Calls {
		got = append(got, c.ID)
	}
	if diff := cmp.Diff(streamed, got); diff != "" {
		t.Errorf("streamed ids and Finish's differ (-streamed +finish):\n%s", diff)
	}
	if len(got) != len(written) || got[3] != "new123456" {
		t.Fatalf("UniqueIDs ids = %v, want 5 with the new id kept 4th", got)
	}
	taken := map[string]bool{long: true, "old123456": true, shown: true}
	for i, id := range got {
		if i != 3 && (taken[id] || !f.ValidID(id)) {
			t.Errorf("call %d (written %s) has id %q: taken or not a Mistral id", i, written[i], id)
		}
		taken[id] = true
	}
}
