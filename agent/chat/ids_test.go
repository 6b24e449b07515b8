package chat

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMapIDs(t *testing.T) {
	calls := []ToolCall{
		call("call0abc1", "a", "{}"),
		call("4tchrKKLmaYPKFydOBferm8vtWKKy0lH", "b", "{}"),
		call("", "c", "{}"),
		call("x-1", "d", "{}"),
	}
	m := MapIDs(calls, testFormat(t, "mistral"), rand.New(rand.NewPCG(1, 1)))
	if len(m) != 2 || m["4tchrKKLmaYPKFydOBferm8vtWKKy0lH"] == "" || m["x-1"] == "" || m["4tchrKKLmaYPKFydOBferm8vtWKKy0lH"] == m["x-1"] {
		t.Fatalf("MapIDs = %v, want new ids for the 32-character id and x-1", m)
	}
	for old, id := range m {
		if len(id) != 9 || !isAlnum(id) || id == "call0abc1" {
			t.Errorf("MapIDs: %s -> %q", old, id)
		}
	}
	if m := MapIDs(calls, testFormat(t, "hermes"), nil); len(m) != 0 {
		t.Errorf("MapIDs for hermes = %v, want none", m)
	}
}

func TestRemapIDs(t *testing.T) {
	history := []Message{
		{Role: "user", Content: "go"},
		{Role: "assistant", ToolCalls: []ToolCall{call("dup", "a", "{}"), call("dup", "b", "{}"), call("", "c", "{}"), call("good12345", "d", "{}")}},
		{Role: "tool", ToolCallID: "dup", Content: "ra"},
		{Role: "tool", ToolCallID: "dup", Content: "rb"},
		{Role: "tool", ToolCallID: "good12345", Content: "rd"},
		{Role: "tool", ToolCallID: "orphan", Content: "ro"},
		{Role: "assistant", ToolCalls: []ToolCall{call("dup", "e", "{}")}},
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
	calls := []ToolCall{call("a", "f", "{}"), call("b", "f", "{}"), call("c", "f", "{}")}
	res := func(ids ...string) []Message {
		var out []Message
		for _, id := range ids {
			out = append(out, Message{Role: "tool", ToolCallID: id, Content: "r" + id})
		}
		return out
	}
	tests := []struct {
		name    string
		calls   []ToolCall
		results []Message
		want    []Message
		wantErr bool
	}{
		{"in order", calls, res("a", "b", "c"), res("a", "b", "c"), false},
		{"reversed", calls, res("c", "b", "a"), res("a", "b", "c"), false},
		{"shuffled", calls, res("b", "c", "a"), res("a", "b", "c"), false},
		{"none", nil, nil, []Message{}, false},
		{"missing", calls, res("a", "c"), nil, true},
		{"unknown", calls, res("a", "b", "c", "d"), nil, true},
		{"twice", calls, res("a", "b", "b", "c"), nil, true},
		{"duplicate call ids", []ToolCall{call("x1", "f", "{}"), call("x1", "g", "{}")}, res("x1", "x1"), nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := OrderResults(tt.calls, tt.results)
			if (err != nil) != tt.wantErr {
				t.Fatalf("OrderResults(%v, %v) error = %v, want error %v", tt.calls, tt.results, err, tt.wantErr)
			}
			var e *Error
			if err != nil && !errors.As(err, &e) {
				t.Errorf("error %v is not an *Error", err)
			}
			if diff := cmp.Diff(tt.want, got); err == nil && diff != "" {
				t.Errorf("OrderResults(%v, %v) (-want +got):\n%s", tt.calls, tt.results, diff)
			}
		})
	}
}
