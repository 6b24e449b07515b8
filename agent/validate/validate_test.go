package validate

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
)

// readFileTool is the schema of seed 004 Example 11.
var validateTools = []chat.Tool{{Name: "read_file", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)}}

// TestValidateSeed pins the validator to seed 004 Example 11's two inputs
// and its exact problem lists.
func TestValidateSeed(t *testing.T) {
	v, err := New(validateTools)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		reply Reply
		want  []string
	}{
		{"real response, max_tokens 110", Reply{FinishReason: "length", Calls: []chat.ToolCall{
			{ID: "HUlRwgH2mmTv97GCwkugZHjQytYo6GED", Function: chat.FunctionCall{Name: "read_file", Arguments: "{\n \t\t\t  \t\t\t  \t\t\t  \t\t\t \"path\":\"pom.xml\" }"}},
			{ID: "xxfbWHsmdATilmDyEDVl6PjLkPTkUCbl", Function: chat.FunctionCall{Name: "read_file", Arguments: "{"}},
		}}, []string{
			"finish_reason is length: the output hit max_tokens and the last call may be incomplete",
			"call 1: arguments are not valid JSON (Unexpected end-of-input: expected close marker for Object)",
		}},
		{"made-up response", Reply{FinishReason: "tool_calls", Calls: []chat.ToolCall{
			{ID: "x1", Function: chat.FunctionCall{Name: "read_file", Arguments: `{"path": "pom.xml"}`}},
			{ID: "x1", Function: chat.FunctionCall{Name: "read_files", Arguments: `{}`}},
			{ID: "", Function: chat.FunctionCall{Name: "read_file", Arguments: `{"file": 7}`}},
			{ID: "x3", Function: chat.FunctionCall{Name: "read_file", Arguments: `["pom.xml"]`}},
		}}, []string{
			"call 1: duplicate id x1",
			"call 1: unknown tool 'read_files'",
			"call 2: empty id",
			"call 2: missing required argument 'path'",
			"call 2: unknown argument 'file'",
			"call 3: arguments are not a JSON object",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, p := range v.Validate(tt.reply) {
				got = append(got, p.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Validate mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidateTypes(t *testing.T) {
	tools := []chat.Tool{{Name: "edit", Parameters: json.RawMessage(`{"type": "object", "properties": {
		"path": {"type": "string"}, "line": {"type": "integer", "minimum": 1}, "mode": {"enum": ["a", "b"]}}, "required": ["path"]}`)}}
	v, err := New(tools)
	if err != nil {
		t.Fatal(err)
	}
	got := v.Validate(Reply{FinishReason: "tool_calls", Calls: []chat.ToolCall{
		{ID: "a", Function: chat.FunctionCall{Name: "edit", Arguments: `{"path": ["x"], "line": 0, "mode": "c"}`}},
		{ID: "b", Function: chat.FunctionCall{Name: "edit", Arguments: `{"path": "x", "line": 3}`}},
	}})
	var msgs []string
	for _, p := range got {
		msgs = append(msgs, p.String())
	}
	joined := strings.Join(msgs, "\n")
	for _, want := range []string{"call 0: argument 'path' must be a string", "call 0: argument 'line': minimum", "call 0: argument 'mode'"} {
		if !strings.Contains(joined, want) {
			t.Errorf("Validate problems lack %q:\n%s", want, joined)
		}
	}
	if strings.Contains(joined, "call 1") {
		t.Errorf("a valid call was reported:\n%s", joined)
	}
}

func TestNewValidatorBadSchema(t *testing.T) {
	_, err := New([]chat.Tool{{Name: "broken", Parameters: json.RawMessage(`{"type": 7}`)}})
	if err == nil || !strings.Contains(err.Error(), "broken") {
		t.Errorf("New(bad schema) = %v, want an error naming the tool", err)
	}
}

func FuzzValidate(f *testing.F) {
	f.Add("read_file", `{"path": "x"}`, "length")
	f.Add("x", `{`, "stop")
	v, err := New(validateTools)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name, args, finish string) {
		v.Validate(Reply{FinishReason: finish, Calls: []chat.ToolCall{{ID: "1", Function: chat.FunctionCall{Name: name, Arguments: args}}}})
	})
}

// TestValidateHistory: two calls with one id anywhere in a conversation,
// or a result whose id names no earlier call, is an error naming the id. A
// live run used to give all its calls one id, and the check looked only
// inside one message.
func TestValidateHistory(t *testing.T) {
	const same = "760izblm3iA8z54miRDQttP6bf5d1OuD"
	user := chat.Message{Role: "user", Content: "go"}
	turn := func(ids ...string) []chat.Message {
		a := chat.Message{Role: "assistant"}
		var results []chat.Message
		for _, id := range ids {
			a.ToolCalls = append(a.ToolCalls, call(id, "read_file", `{"path": "a"}`))
			results = append(results, chat.Message{Role: "tool", ToolCallID: id, Content: "r"})
		}
		return append([]chat.Message{a}, results...)
	}
	join := func(parts ...[]chat.Message) []chat.Message {
		var out []chat.Message
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	tests := []struct {
		name    string
		history []chat.Message
		want    error  // nil: valid
		text    string // in the error
	}{
		{"unique", join([]chat.Message{user}, turn("a", "b"), turn("c")), nil, ""},
		{"no ids, paired by position", join([]chat.Message{user}, turn("", "")), nil, ""},
		{"one id in two messages", join([]chat.Message{user}, turn(same), turn(same)), ErrDuplicateCallID,
			`validate history: message 3: duplicate call id "` + same + `": message 1 has a call with this id`},
		{"one id in one message", join([]chat.Message{user}, turn("a", "a")), ErrDuplicateCallID, `duplicate call id "a"`},
		{"result before its call", join([]chat.Message{user, {Role: "tool", ToolCallID: "a", Content: "r"}}, turn("a")), ErrOrphanResult,
			`validate history: message 1: tool result for no earlier call: id "a"`},
		{"result of no call", join([]chat.Message{user}, turn("a"), []chat.Message{{Role: "tool", ToolCallID: "b", Content: "r"}}), ErrOrphanResult, `id "b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := History(tt.history)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.text)) {
				t.Errorf("History = %v, want %v with %q", err, tt.want, tt.text)
			}
		})
	}
}

func call(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}
}
