package retry

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/validate"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/golden"
)

// readFile is seed 000 Example 5's read_file: one required string, whose
// description gives the seed's placeholder.
const readFile = `[{"type": "function", "function": {"name": "read_file", "description": "Read a file",
	"parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "file path"}}, "required": ["path"]}}}]`

func tools(t testing.TB, data string) ([]chat.Tool, *validate.Validator) {
	t.Helper()
	ts, err := chat.ParseTools([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	v, err := validate.New(ts)
	if err != nil {
		t.Fatal(err)
	}
	return ts, v
}

func call(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}
}

// TestSeedExample5 validates the attempts of the seed's two scenarios with
// loop's validator and compares the problem lists and the error text with
// the seed's lines, copied verbatim (the lines of attempts and the error
// sent back; the message counts are the agent loop's).
func TestSeedExample5(t *testing.T) {
	ts, v := tools(t, readFile)
	var out strings.Builder
	attempt := func(n int, c chat.ToolCall) []validate.Violation {
		vs := v.Validate(validate.Reply{FinishReason: "tool_calls", Calls: []chat.ToolCall{c}})
		result := "valid"
		if len(vs) > 0 {
			result = "[" + strings.Join(Problems(c, vs), ", ") + "]"
		}
		fmt.Fprintf(&out, "  attempt %d: %s -> %s\n", n, c.Function.Arguments, result)
		return vs
	}
	first := call("c1", "read_file", `{"file": "pom.xml"}`)
	vs := attempt(1, first)
	attempt(2, call("c2", "read_file", `{"path": "pom.xml"}`))
	fmt.Fprintf(&out, "  error sent back: %s\n", Feedback{Tools: ts}.Message(first, vs))
	attempt(1, first)
	attempt(2, call("c2", "read_file", `{"paths": ["pom.xml"]}`))
	attempt(3, call("c3", "read_file", `{"path": 7}`))
	golden.Seed(t, "example5.txt", out.String())
}

const editFile = `[{"type": "function", "function": {"name": "edit_file", "parameters": {"type": "object",
	"properties": {"path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"}, "count": {"type": "integer", "description": "how many"}},
	"required": ["path", "old_string", "new_string", "count"]}}},
	{"type": "function", "function": {"name": "shell", "parameters": {"type": "object", "properties": {"command": {"type": "string", "enum": ["ls"]}}, "required": ["command"]}}}]`

func TestMessage(t *testing.T) {
	ts, v := tools(t, editFile)
	tests := []struct {
		name string
		call chat.ToolCall
		want string
	}{
		{"unknown tool", call("c1", "cat", `{"path": "a"}`),
			"Unknown tool 'cat'. Available tools: edit_file, shell. Call one of them."},
		{"order of the arguments as written", call("c1", "edit_file", `{"new_string": 1, "junk": true, "path": "a", "old_string": "b"}`),
			"Invalid arguments for edit_file: missing required argument 'count'; 'new_string' must be a string, got 1; unknown argument 'junk'. " +
				`Expected {"path": "<path>", "old_string": "<old_string>", "new_string": "<new_string>", "count": <how many>}. Call edit_file again with corrected arguments.`},
		{"nested value", call("c1", "edit_file", `{"path": ["a", {"b": 1}], "old_string": "b", "new_string": "c", "count": 1}`),
			`Invalid arguments for edit_file: 'path' must be a string, got ["a",{"b":1}]. Expected {"path": "<path>", "old_string": "<old_string>", "new_string": "<new_string>", "count": <how many>}. Call edit_file again with corrected arguments.`},
		{"other schema problem", call("c1", "shell", `{"command": "rm"}`),
			`Invalid arguments for shell: argument 'command': value must be 'ls'. Expected {"command": "<command>"}. Call shell again with corrected arguments.`},
		{"not JSON", call("c1", "shell", `{"command": `),
			`Invalid arguments for shell: arguments are not valid JSON (Unexpected end-of-input: expected close marker for Object). Expected {"command": "<command>"}. Call shell again with corrected arguments.`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := v.Validate(validate.Reply{FinishReason: "tool_calls", Calls: []chat.ToolCall{tt.call}})
			if diff := cmp.Diff(tt.want, Feedback{Tools: ts}.Message(tt.call, vs)); diff != "" {
				t.Errorf("Message(%v) mismatch (-want +got):\n%s", tt.call.Function, diff)
			}
		})
	}
}

// FuzzProblems: wording any arguments' violations never panics.
func FuzzProblems(f *testing.F) {
	f.Add(`{"file": "pom.xml"}`)
	f.Add(`{"path": 7, "x": [1, {"y": null}]}`)
	f.Add(`{"path": `)
	ts, v := tools(f, readFile)
	f.Fuzz(func(t *testing.T, args string) {
		c := call("c1", "read_file", args)
		Feedback{Tools: ts}.Message(c, v.Validate(validate.Reply{Calls: []chat.ToolCall{c}}))
	})
}
