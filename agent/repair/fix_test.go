package repair

import (
	"testing"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
)

// seedTools are the tools of seed 000 Examples 1 and 13: read_file,
// edit_file and shell with required string arguments.
const seedTools = `[
{"type": "function", "function": {"name": "read_file", "description": "Read a text file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
{"type": "function", "function": {"name": "edit_file", "description": "Replace old_string with new_string", "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "old_string": {"type": "string"}, "new_string": {"type": "string"}}, "required": ["path", "old_string", "new_string"]}}},
{"type": "function", "function": {"name": "shell", "description": "Run a command", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}}}]`

func fn(name, args string) chat.ToolCall {
	return chat.ToolCall{Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}
}

var (
	readPom  = fn("read_file", `{"path":"pom.xml"}`)
	mvnTest  = fn("shell", `{"command":"mvn -q test"}`)
	ticks    = "```"
	pomJSON  = `{"name": "read_file", "arguments": {"path": "pom.xml"}}`
	outside  = []callformat.Problem{{Kind: callformat.OutsideFormat}}
	invalid  = []callformat.Problem{{Kind: callformat.InvalidJSON}}
	cutOff   = []callformat.Problem{{Kind: callformat.Unterminated}}
	noProbs  []callformat.Problem
	problemK = cmp.Transformer("kinds", func(ps []callformat.Problem) []callformat.ProblemKind {
		var ks []callformat.ProblemKind
		for _, p := range ps {
			ks = append(ks, p.Kind)
		}
		return ks
	})
)

func TestFix(t *testing.T) {
	tests := []struct {
		name   string
		format string // default hermes
		fixer  Fixer  // Format and Check are set by the test, unless off
		raw    string
		want   callformat.Parsed
		fixes  []Fix
	}{
		{name: "seed 000 Example 1 reply 1: nothing to fix", raw: "<tool_call>\n" + pomJSON + "\n</tool_call>",
			want: callformat.Parsed{Calls: []chat.ToolCall{readPom}}},
		{name: "seed 000 Example 1 reply 2: fenced after text", raw: "I will read it.\n" + ticks + "json\n" + pomJSON + "\n" + ticks,
			want:  callformat.Parsed{Content: "I will read it.", Calls: []chat.ToolCall{readPom}},
			fixes: []Fix{{Kind: KindFenced, Call: readPom}}},
		{name: "seed 000 Example 1 reply 3: trailing comma", raw: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\",}}\n</tool_call>",
			want:  callformat.Parsed{Calls: []chat.ToolCall{readPom}},
			fixes: []Fix{{Kind: KindJSON, Call: readPom, Repairs: []string{TrailingComma}}}},
		{name: "seed 000 Example 1 reply 4: single quotes", raw: "<tool_call>\n{'name': 'read_file', 'arguments': {'path': 'pom.xml'}}\n</tool_call>",
			want:  callformat.Parsed{Calls: []chat.ToolCall{readPom}},
			fixes: []Fix{{Kind: KindJSON, Call: readPom, Repairs: []string{SingleQuotes}}}},
		{name: "seed 000 Example 1 reply 8: truncated is never repaired", raw: "<tool_call>\n{\"name\": \"edit_file\", \"arguments\": {\"path\": \"src/main/ja",
			want: callformat.Parsed{Problems: cutOff}},
		{name: "seed 000 Example 13: single quotes in a shell call", raw: "<tool_call>\n{'name': 'shell', 'arguments': {'command': 'mvn -q test'}}\n</tool_call>",
			want:  callformat.Parsed{Calls: []chat.ToolCall{mvnTest}},
			fixes: []Fix{{Kind: KindJSON, Call: mvnTest, Repairs: []string{SingleQuotes}}}},
		{name: "repaired call after a good one", raw: "<tool_call>\n" + pomJSON + "\n</tool_call>\n<tool_call>\n{\"name\": \"shell\", \"arguments\": {\"command\": \"mvn -q test\", }}\n</tool_call>",
			want:  callformat.Parsed{Calls: []chat.ToolCall{readPom, mvnTest}},
			fixes: []Fix{{Kind: KindJSON, Call: mvnTest, Repairs: []string{TrailingComma}}}},
		{name: "repair that gives no call is not kept", raw: "<tool_call>\n{'arguments': {'path': 'pom.xml'}}\n</tool_call>",
			want: callformat.Parsed{Problems: invalid}},
		{name: "JSON repair off", fixer: Fixer{NoRepair: true}, raw: "<tool_call>\n{'name': 'read_file', 'arguments': {'path': 'pom.xml'}}\n</tool_call>",
			want: callformat.Parsed{Problems: invalid}},
		{name: "recovery off", fixer: Fixer{NoRecovery: true}, raw: ticks + "json\n" + pomJSON + "\n" + ticks,
			want: callformat.Parsed{Content: ticks + "json\n" + pomJSON + "\n" + ticks, Problems: outside}},
		{name: "fenced with a trailing comma", raw: ticks + "\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\",},}\n" + ticks,
			want:  callformat.Parsed{Calls: []chat.ToolCall{readPom}},
			fixes: []Fix{{Kind: KindFenced, Call: readPom, Repairs: []string{TrailingComma}}}},
		{name: "unknown tool in a ticks is refused", raw: ticks + "json\n{\"name\": \"cat\", \"arguments\": {\"path\": \"pom.xml\"}}\n" + ticks,
			want:  callformat.Parsed{Content: ticks + "json\n{\"name\": \"cat\", \"arguments\": {\"path\": \"pom.xml\"}}\n" + ticks, Problems: outside},
			fixes: []Fix{{Kind: KindFenced, Call: fn("cat", `{"path":"pom.xml"}`), Refused: "unknown tool 'cat'"}}},
		{name: "missing argument in a function tag is refused", raw: "<function=shell>{\"cmd\": \"ls\"}</function>",
			want:  callformat.Parsed{Content: "<function=shell>{\"cmd\": \"ls\"}</function>", Problems: outside},
			fixes: []Fix{{Kind: KindFunctionTag, Call: fn("shell", `{"cmd":"ls"}`), Refused: "missing required argument 'command'"}}},
		{name: "truncated ticks is refused", raw: "Reading.\n" + ticks + "json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"po",
			want:  callformat.Parsed{Content: "Reading.\n" + ticks + "json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"po", Problems: outside},
			fixes: []Fix{{Kind: KindFenced, Call: fn("read_file", `{"path":"po"}`), Repairs: []string{Truncated}, Refused: Truncated}}},
		{name: "mention after text", raw: "Call it like this: " + pomJSON,
			want:  callformat.Parsed{Content: "Call it like this: " + pomJSON, Problems: outside},
			fixes: []Fix{{Kind: KindBareObject, Call: readPom, Refused: mention}}},
		{name: "bare object then text", raw: pomJSON + "\nI will wait for the file.",
			want:  callformat.Parsed{Content: "I will wait for the file.", Calls: []chat.ToolCall{readPom}},
			fixes: []Fix{{Kind: KindBareObject, Call: readPom}}},
		{name: "array in a ticks", raw: ticks + "json\n[" + pomJSON + ", {\"name\": \"shell\", \"parameters\": {\"command\": \"mvn -q test\"}}]\n" + ticks,
			want:  callformat.Parsed{Calls: []chat.ToolCall{readPom, mvnTest}},
			fixes: []Fix{{Kind: KindFenced, Call: readPom}, {Kind: KindFenced, Call: mvnTest}}},
		{name: "arguments encoded as a string", raw: "<tool>{\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"pom.xml\\\"}\"}</tool>",
			want:  callformat.Parsed{Calls: []chat.ToolCall{readPom}},
			fixes: []Fix{{Kind: KindWrapper, Call: readPom}}},
		{name: "one refused call keeps its block", raw: "<tools>" + pomJSON + "\n{\"name\": \"cat\", \"arguments\": {}}</tools>",
			want: callformat.Parsed{Content: "<tools>" + pomJSON + "\n{\"name\": \"cat\", \"arguments\": {}}</tools>", Problems: outside},
			fixes: []Fix{{Kind: KindWrapper, Call: readPom, Refused: "in one block with a refused call"},
				{Kind: KindWrapper, Call: fn("cat", `{}`), Refused: "unknown tool 'cat'"}}},
		{name: "JSON in a ticks that is no call stays", raw: "The config:\n" + ticks + "json\n{\"path\": \"pom.xml\"}\n" + ticks,
			want: callformat.Parsed{Content: "The config:\n" + ticks + "json\n{\"path\": \"pom.xml\"}\n" + ticks}},
		{name: "brace in prose, then a function tag", raw: "Use { carefully. <function=read_file>{\"path\": \"pom.xml\"}</function>",
			want:  callformat.Parsed{Content: "Use { carefully.", Calls: []chat.ToolCall{readPom}},
			fixes: []Fix{{Kind: KindFunctionTag, Call: readPom}}},
		{name: "prompt format: single quotes", format: "prompt", raw: "{'tool': 'read_file', 'arguments': {'path': 'pom.xml'}}",
			want:  callformat.Parsed{Calls: []chat.ToolCall{readPom}},
			fixes: []Fix{{Kind: KindJSON, Call: readPom, Repairs: []string{SingleQuotes}}}},
	}
	tools, err := chat.ParseTools([]byte(seedTools))
	if err != nil {
		t.Fatal(err)
	}
	v, err := validate.New(tools)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.format
			if name == "" {
				name = "hermes"
			}
			f, err := callformat.New(name, tools)
			if err != nil {
				t.Fatal(err)
			}
			fx := tt.fixer
			fx.Format, fx.Check = f, Validates(v)
			got, fixes := fx.Fix(tt.raw, f.Parse(tt.raw))
			if diff := cmp.Diff(tt.want, got, problemK); diff != "" {
				t.Errorf("Fix(%q) parsed mismatch (-want +got):\n%s", tt.raw, diff)
			}
			if diff := cmp.Diff(tt.fixes, fixes); diff != "" {
				t.Errorf("Fix(%q) fixes mismatch (-want +got):\n%s", tt.raw, diff)
			}
		})
	}
}

// TestFixZero: the zero Fixer changes nothing.
func TestFixZero(t *testing.T) {
	f, _ := callformat.New("hermes", nil)
	raw := "<tool_call>\n{'name': 'read_file', 'arguments': {}}\n</tool_call>\n" + ticks + "\n" + pomJSON + "\n" + ticks
	p := f.Parse(raw)
	got, fixes := Fixer{}.Fix(raw, p)
	if diff := cmp.Diff(p, got); diff != "" || fixes != nil {
		t.Errorf("Fixer{}.Fix changed the reply (-want +got):\n%s\nfixes %v", diff, fixes)
	}
}

// FuzzFix: the Fixer never panics, takes only calls Check accepts, and
// never drops a call the parser read.
func FuzzFix(f *testing.F) {
	for _, tc := range llamaCases {
		f.Add(tc.input)
	}
	f.Add("<tool_call>\n{'name': 'read_file', 'arguments': {'path': 'pom.xml',}}\n</tool_call>")
	f.Add("I will read it.\n```json\n" + pomJSON + "\n```")
	f.Add("<tools>[{\"name\": \"shell\", \"arguments\": \"{\\\"command\\\": 1}\"}]</tools> {")
	tools, _ := chat.ParseTools([]byte(seedTools))
	v, _ := validate.New(tools)
	format, _ := callformat.New("hermes", tools)
	check := Validates(v)
	f.Fuzz(func(t *testing.T, raw string) {
		p := format.Parse(raw)
		got, fixes := Fixer{Format: format, Check: check}.Fix(raw, p)
		if lost := newCalls(got.Calls, p.Calls); len(lost) > 0 {
			t.Fatalf("Fix(%q) dropped calls %v", raw, lost)
		}
		taken := 0
		for _, fx := range fixes {
			if fx.Refused != "" {
				continue
			}
			taken++
			if fx.Kind != KindJSON && check(fx.Call) != nil {
				t.Fatalf("Fix(%q) took %v, which Check refuses", raw, fx.Call)
			}
		}
		if len(got.Calls) != len(p.Calls)+taken {
			t.Fatalf("Fix(%q): %d calls, %d taken fixes, from %d", raw, len(got.Calls), taken, len(p.Calls))
		}
	})
}
