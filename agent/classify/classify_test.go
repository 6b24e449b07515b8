package classify

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/golden"
)

// seedTools are the tools of seed 000 Example 1: read_file, edit_file and
// shell with required string arguments.
const seedTools = `[
{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
{"type": "function", "function": {"name": "edit_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"}}, "required": ["path", "old_string", "new_string"]}}},
{"type": "function", "function": {"name": "shell", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}]`

// seedFiles are the files of the seed's workspace.
var seedFiles = []string{"pom.xml", "src/main/java/app/OrderService.java"}

func seedClassifier(t testing.TB) Classifier {
	t.Helper()
	tools, err := chat.ParseTools([]byte(seedTools))
	if err != nil {
		t.Fatal(err)
	}
	v, err := validate.New(tools)
	if err != nil {
		t.Fatal(err)
	}
	f, err := callformat.New("hermes", tools)
	if err != nil {
		t.Fatal(err)
	}
	return Classifier{Format: f, Validator: v, Exists: func(p string) bool { return slices.Contains(seedFiles, p) }}
}

type reply struct{ text, finish string }

var fence = strings.Repeat("`", 3)

// example1Replies are the eleven replies of seed 000 Example 1.
var example1Replies = []reply{
	{"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}}\n</tool_call>", "tool_calls"},
	{"I will read it.\n" + fence + "json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}}\n" + fence, "stop"},
	{"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\",}}\n</tool_call>", "stop"},
	{"<tool_call>\n{'name': 'read_file', 'arguments': {'path': 'pom.xml'}}\n</tool_call>", "stop"},
	{"<tool_call>\n{\"name\": \"cat\", \"arguments\": {\"path\": \"pom.xml\"}}\n</tool_call>", "stop"},
	{"<tool_call>\n{\"name\": \"shell\", \"arguments\": {\"cmd\": \"mvn test\"}}\n</tool_call>", "stop"},
	{"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": [\"pom.xml\"]}}\n</tool_call>", "stop"},
	{"<tool_call>\n{\"name\": \"edit_file\", \"arguments\": {\"path\": \"src/main/ja", "length"},
	{"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/OrderService.java\"}}\n</tool_call>", "stop"},
	{"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/OrderService.java\"}}\n</tool_call>", "stop"},
	{"The tests pass now.", "stop"},
}

// TestSeedExample1 classifies the eleven replies of seed 000 Example 1,
// each with the previous reply's call, and compares the lines with the
// seed's output, copied verbatim.
func TestSeedExample1(t *testing.T) {
	c := seedClassifier(t)
	var out strings.Builder
	previous := ""
	for i, r := range example1Replies {
		kind := c.Classify(Reply{Text: r.text, FinishReason: r.finish, Previous: previous})
		fmt.Fprintf(&out, "%2d. %-31s -> %s\n", i+1, seedLabels[kind], kind.Remedy())
		previous = Signature(c.Format.Parse(r.text).Calls)
	}
	golden.Seed(t, "example1.txt", out.String())
}

func call(name, args string) chat.ToolCall {
	return chat.ToolCall{Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}
}

// TestClassifyParsed classifies replies that another format's parser
// read: the Classifier takes the callformat.Parsed as it is.
func TestClassifyParsed(t *testing.T) {
	readPom := call("read_file", `{"path":"pom.xml"}`)
	tests := []struct {
		name     string
		parsed   callformat.Parsed
		finish   string
		previous string
		c        func(Classifier) Classifier
		want     Kind
	}{
		{name: "ok", parsed: callformat.Parsed{Calls: []chat.ToolCall{readPom}}, want: OK},
		{name: "malformed markup", parsed: callformat.Parsed{Problems: []callformat.Problem{{Kind: callformat.Malformed}}}, want: InvalidJSON},
		{name: "cut off before invalid", parsed: callformat.Parsed{Problems: []callformat.Problem{{Kind: callformat.Unterminated}}}, finish: "length", want: CutOff},
		{name: "unterminated without length reads as invalid JSON, as in the seed", parsed: callformat.Parsed{Problems: []callformat.Problem{{Kind: callformat.Unterminated}}}, want: InvalidJSON},
		{name: "outside format", parsed: callformat.Parsed{Content: "[{...}]", Problems: []callformat.Problem{{Kind: callformat.OutsideFormat}}}, want: OutsideFormat},
		{name: "text only", parsed: callformat.Parsed{Content: "Done."}, want: TextOnly},
		{name: "unknown argument", parsed: callformat.Parsed{Calls: []chat.ToolCall{call("read_file", `{"path":"pom.xml","lines":3}`)}}, want: UnknownArgument},
		{name: "missing before wrong type", parsed: callformat.Parsed{Calls: []chat.ToolCall{call("edit_file", `{"path":1,"old_string":"a"}`)}}, want: MissingArgument},
		{name: "second call decides", parsed: callformat.Parsed{Calls: []chat.ToolCall{readPom, call("cat", `{}`)}}, want: UnknownTool},
		{name: "repeat with keys reordered", parsed: callformat.Parsed{Calls: []chat.ToolCall{call("edit_file", `{"path":"pom.xml","new_string":"b","old_string":"a"}`)}},
			previous: Signature([]chat.ToolCall{call("edit_file", `{"old_string": "a", "new_string": "b", "path": "pom.xml"}`)}), want: Repeat},
		{name: "edit of a missing file", parsed: callformat.Parsed{Calls: []chat.ToolCall{call("edit_file", `{"path":"nope","old_string":"a","new_string":"b"}`)}}, want: PathMissing},
		{name: "a new file may not exist", c: func(c Classifier) Classifier { c.NewFiles = []string{"edit_file"}; return c },
			parsed: callformat.Parsed{Calls: []chat.ToolCall{call("edit_file", `{"path":"nope","old_string":"a","new_string":"b"}`)}}, want: OK},
		{name: "no validator: tools unchecked", c: func(c Classifier) Classifier { c.Validator = nil; return c },
			parsed: callformat.Parsed{Calls: []chat.ToolCall{call("cat", `{"path":"pom.xml"}`)}}, want: OK},
		{name: "no Exists: paths unchecked", c: func(c Classifier) Classifier { c.Exists = nil; return c },
			parsed: callformat.Parsed{Calls: []chat.ToolCall{call("read_file", `{"path":"nope"}`)}}, want: OK},
	}
	base := seedClassifier(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base
			if tt.c != nil {
				c = tt.c(c)
			}
			got := c.Classify(Reply{Text: "(unused)", FinishReason: tt.finish, Parsed: &tt.parsed, Previous: tt.previous})
			if got != tt.want {
				t.Errorf("Classify(%+v) = %s, want %s", tt.parsed, got, tt.want)
			}
		})
	}
}

// TestZeroClassifier: the zero value parses Hermes.
func TestZeroClassifier(t *testing.T) {
	if got := (Classifier{}).Classify(Reply{Text: example1Replies[0].text, FinishReason: "stop"}); got != OK {
		t.Errorf("Classifier{}.Classify(reply 1) = %s, want ok", got)
	}
}

// seedLabels are the kinds in seed 000 Example 1's words.
var seedLabels = map[Kind]string{
	OK:              "ok",
	OutsideFormat:   "call outside the call format",
	InvalidJSON:     "invalid JSON",
	UnknownTool:     "unknown tool",
	MissingArgument: "missing argument",
	WrongType:       "wrong argument type",
	UnknownArgument: "unknown argument",
	CutOff:          "cut off by max_tokens",
	PathMissing:     "valid call, path does not exist",
	Repeat:          "same call as the previous step",
	TextOnly:        "text only, no call",
}

func TestKinds(t *testing.T) {
	for k := range seedLabels {
		if k.Remedy() == "" {
			t.Errorf("kind %s has no remedy", k)
		}
	}
}

// FuzzClassify: Classify never panics on any reply text.
func FuzzClassify(f *testing.F) {
	for _, r := range example1Replies {
		f.Add(r.text, r.finish)
	}
	c := seedClassifier(f)
	f.Fuzz(func(t *testing.T, text, finish string) {
		k := c.Classify(Reply{Text: text, FinishReason: finish, Previous: "read_file{}"})
		if _, ok := seedLabels[k]; !ok {
			t.Fatalf("Classify(%q) = %q, not a kind", text, k)
		}
	})
}
