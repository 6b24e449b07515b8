package callformat

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/grammar"
)

// parseTest is one case of a format's table: problems are compared by
// kind; their messages are for people.
type parseTest struct {
	name string
	text string
	want Parsed
}

func texts(tests []parseTest) []string {
	out := make([]string, len(tests))
	for i, tt := range tests {
		out[i] = tt.text
	}
	return out
}

// call is a ToolCall with id for the tables.
func call(id, name, args string) chat.ToolCall {
	return chat.ToolCall{ID: id, Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}
}

// problems returns problems of the kinds given.
func problems(kinds ...ProblemKind) []Problem {
	out := make([]Problem, len(kinds))
	for i, k := range kinds {
		out[i] = Problem{Kind: k}
	}
	return out
}

var parsedOpts = cmp.Options{cmpopts.IgnoreFields(Problem{}, "Message"), cmpopts.EquateEmpty()}

func runParseTests(t *testing.T, f Format, tests []parseTest) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := f.Parse(tt.text)
			if diff := cmp.Diff(tt.want, got, parsedOpts); diff != "" {
				t.Errorf("Parse(%q) = %+v, want %+v\n(-want +got):\n%s", tt.text, got, tt.want, diff)
			}
			for _, p := range got.Problems {
				if p.Message == "" {
					t.Errorf("Parse(%q): problem %s has no message", tt.text, p.Kind)
				}
			}
		})
	}
}

func TestFormatNames(t *testing.T) {
	want := []string{"hermes", "qwen3-coder", "llama3", "mistral", "harmony", "functionary-v3.1", "functionary-v3.2",
		"firefunction-v2", "nemotron-v2", "deepseek-r1", "deepseek-v3.1", "kimi-k2", "seed-oss", "command-r7b", "prompt"}
	if diff := cmp.Diff(want, Names()); diff != "" {
		t.Errorf("Names() (-want +got):\n%s", diff)
	}
	for _, name := range Names() {
		f, err := New(name, parseTools)
		if err != nil || f.Name() != name {
			t.Errorf("New(%q) = %v, %v", name, f, err)
		}
	}
	_, err := New("chatml", nil)
	var e *chat.Error
	if !errors.As(err, &e) || !strings.Contains(err.Error(), "chatml") {
		t.Errorf("New(chatml) = %v, want an *Error naming it", err)
	}
}

func TestNewID(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, name := range Names() {
		f := testFormat(t, name)
		want := 32
		if name == "mistral" {
			want = 9
		}
		seen := map[string]bool{}
		for i := 0; i < 100; i++ {
			id := f.NewID(r)
			if len(id) != want || !isAlnum(id) || !f.ValidID(id) || seen[id] {
				t.Fatalf("%s NewID() = %q, want %d unique alphanumerics", name, id, want)
			}
			seen[id] = true
		}
		if id := f.NewID(nil); len(id) != want {
			t.Errorf("%s NewID(nil) = %q", name, id)
		}
	}
}

func TestValidID(t *testing.T) {
	tests := []struct {
		format, id string
		want       bool
	}{
		{"mistral", "call0abc1", true},
		{"mistral", "6aKdJM1U5AYakbQUh2ae9giQx978MzKC", false},
		{"mistral", "call-abc1", false},
		{"mistral", "", false},
		{"hermes", "6aKdJM1U5AYakbQUh2ae9giQx978MzKC", true},
		{"hermes", "call_1", true},
		{"hermes", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.format+"/"+tt.id, func(t *testing.T) {
			if got := testFormat(t, tt.format).ValidID(tt.id); got != tt.want {
				t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
			}
		})
	}
}

func TestReasoningBlock(t *testing.T) {
	for _, name := range Names() {
		b := testFormat(t, name).ReasoningBlock()
		switch name {
		case "hermes", "qwen3-coder", "nemotron-v2", "deepseek-r1", "deepseek-v3.1":
			if b == nil || b.Open != "<think>" || b.Close != "</think>" {
				t.Errorf("%s ReasoningBlock() = %+v", name, b)
			}
		case "seed-oss":
			if b == nil || b.Open != "<seed:think>" || b.Close != "</seed:think>" {
				t.Errorf("%s ReasoningBlock() = %+v", name, b)
			}
		case "command-r7b":
			if b == nil || b.Open != "<|START_THINKING|>" || b.Close != "<|END_THINKING|>" {
				t.Errorf("%s ReasoningBlock() = %+v", name, b)
			}
		case "harmony":
			if b == nil || b.Open != "<|channel|>analysis<|message|>" {
				t.Errorf("%s ReasoningBlock() = %+v", name, b)
			}
		default:
			if b != nil {
				t.Errorf("%s ReasoningBlock() = %+v, want nil", name, b)
			}
		}
	}
}

// grammarChoices are the tool_choice values every grammar is built for.
var grammarChoices = []struct {
	name   string
	choice grammar.Choice
}{
	{"auto", grammar.Choice{Mode: grammar.ChoiceAuto}},
	{"required", grammar.Choice{Mode: grammar.ChoiceRequired}},
	{"named", grammar.Choice{Mode: grammar.ChoiceFunction, Function: "head"}},
}

// TestGrammarValid builds every format's grammar for every tool_choice,
// parallel or not, with and without a reasoning block, and checks that it
// parses and validates as llama.cpp would.
func TestGrammarValid(t *testing.T) {
	for _, name := range Names() {
		for _, ch := range grammarChoices {
			for _, parallel := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/parallel=%v", name, ch.name, parallel), func(t *testing.T) {
					f := testFormat(t, name)
					opts := grammar.CallOptions{Choice: ch.choice, Parallel: parallel, Reasoning: f.ReasoningBlock()}
					g, err := f.Grammar(opts)
					if err != nil {
						t.Fatalf("Grammar(%+v) = %v", opts, err)
					}
					checkGrammar(t, g)
					// The prompt format's reply is one JSON object: never lazy.
					if g.Lazy != (ch.choice.Mode == grammar.ChoiceAuto && name != "prompt") || g.Lazy && len(g.Triggers) == 0 {
						t.Errorf("Grammar(%+v): lazy %v, triggers %q", opts, g.Lazy, g.Triggers)
					}
					if ch.choice.Mode == grammar.ChoiceFunction && strings.Contains(g.GBNF, "read_file") {
						t.Errorf("Grammar(%+v) names read_file:\n%s", opts, g.GBNF)
					}
				})
			}
		}
	}
}

func checkGrammar(t *testing.T, g *grammar.CallGrammar) {
	t.Helper()
	if g == nil {
		t.Fatal("no grammar")
	}
	parsed, err := grammar.Parse(g.GBNF)
	if err != nil {
		t.Fatalf("grammar.Parse = %v\n%s", err, g.GBNF)
	}
	if err := parsed.Validate("root"); err != nil {
		t.Fatalf("Validate = %v\n%s", err, g.GBNF)
	}
	if !strings.HasPrefix(g.GBNF, "root ::= ") {
		t.Errorf("root is not the first rule:\n%s", g.GBNF)
	}
}

func TestGrammarNone(t *testing.T) {
	for _, name := range Names() {
		g, err := testFormat(t, name).Grammar(grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceNone}})
		if g != nil || err != nil {
			t.Errorf("%s Grammar(none) = %v, %v, want nil, nil", name, g, err)
		}
	}
}

func TestGrammarErrors(t *testing.T) {
	bad := mustParseTools(`[{"type": "function", "function": {"name": "x", "parameters": {"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}}}}]`)
	tests := []struct {
		name  string
		tools []chat.Tool
		opts  grammar.CallOptions
	}{
		{"no tools", nil, grammar.CallOptions{}},
		{"unknown function", parseTools, grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceFunction, Function: "nope"}}},
		{"bad schema", bad, grammar.CallOptions{}},
	}
	for _, name := range Names() {
		for _, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				f, _ := New(name, tt.tools)
				if g, err := f.Grammar(tt.opts); err == nil {
					t.Errorf("Grammar(%+v) = %v, want an error", tt.opts, g)
				}
			})
		}
	}
}

// TestGrammarShapes pins the parts of each grammar that say what the model
// writes.
func TestGrammarShapes(t *testing.T) {
	tests := []struct {
		format string
		opts   Options
		want   []string
	}{
		{"hermes", Options{}, []string{`"<tool_call>\n"`, `"\n</tool_call>"`}},
		{"llama3", Options{}, []string{`root ::= "<|python_tag|>"? (`, `"\"parameters\""`}},
		{"mistral", Options{}, []string{`"[TOOL_CALLS]["`, `"\"id\""`, `[a-zA-Z0-9]{9}`}},
		{"mistral", Options{MistralArgs: true}, []string{`"[TOOL_CALLS]"`, `"[CALL_ID]" [a-zA-Z0-9]{9})?`, `"[ARGS]"`}},
		{"harmony", Options{}, []string{`"<|channel|>commentary to=functions."`, `"read_file <|constrain|>json<|message|>"`}},
		{"qwen3-coder", Options{}, []string{`"<function=head>\n"`, `"<parameter=lines>\n" integer`, `"<parameter=path>\n" xml-text-00`, `"\n</parameter>\n"`}},
		{"prompt", Options{}, []string{`"\"tool\""`, `"\"arguments\""`}},
		{"command-r7b", Options{}, []string{`"<|START_ACTION|>["`, `"]<|END_ACTION|>"`, `"\"tool_call_id\"" space ":" space "\"" [0-9]{1,10} "\""`,
			`"\"tool_name\"" space ":" space "\"head\""`, `"\"parameters\""`}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			f, err := NewWithOptions(tt.format, parseTools, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			g, err := f.Grammar(grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceRequired}, Parallel: true})
			if err != nil {
				t.Fatal(err)
			}
			checkGrammar(t, g)
			for _, w := range tt.want {
				if !strings.Contains(g.GBNF, w) {
					t.Errorf("grammar lacks %s:\n%s", w, g.GBNF)
				}
			}
		})
	}
}

// TestQwen3CoderGrammarSchemas: a tool without properties takes any
// parameters; a $ref into the tool's $defs resolves; a string enum is its
// literal values, without quotes.
func TestQwen3CoderGrammarSchemas(t *testing.T) {
	tools := mustParseTools(`[
	 {"type": "function", "function": {"name": "anything", "parameters": {"type": "object"}}},
	 {"type": "function", "function": {"name": "noparams"}},
	 {"type": "function", "function": {"name": "refs", "parameters": {"type": "object", "$defs": {"pt": {"type": "object", "properties": {"x": {"type": "integer"}}}},
	   "properties": {"at": {"$ref": "#/$defs/pt"}, "mode": {"enum": ["a", "b"]}}, "required": ["at"]}}}]`)
	f, err := New("qwen3-coder", tools)
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.Grammar(grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceRequired}})
	if err != nil {
		t.Fatal(err)
	}
	checkGrammar(t, g)
	for _, w := range []string{"xml-any-param*", `"<parameter=mode>\n" ("a" | "b")`} {
		if !strings.Contains(g.GBNF, w) {
			t.Errorf("grammar lacks %s:\n%s", w, g.GBNF)
		}
	}
}

// TestGrammarMaxCalls: parallel calls capped by MaxCalls.
func TestGrammarMaxCalls(t *testing.T) {
	for _, name := range []string{"qwen3-coder", "harmony"} {
		f := testFormat(t, name)
		for _, max := range []int{1, 3} {
			g, err := f.Grammar(grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceRequired}, Parallel: true, MaxCalls: max})
			if err != nil {
				t.Fatal(err)
			}
			checkGrammar(t, g)
			if has := strings.Contains(g.GBNF, "{0,2}"); has != (max == 3 && name == "qwen3-coder") {
				t.Errorf("%s MaxCalls %d:\n%s", name, max, g.GBNF)
			}
		}
	}
}

func TestSchemaIsString(t *testing.T) {
	tests := []struct {
		schema string
		want   bool
	}{
		{`{"type": "string"}`, true},
		{`{"type": ["string"]}`, true},
		{`{"type": ["string", "null"]}`, false},
		{`{"type": "integer"}`, false},
		{`{"enum": ["a", "b"]}`, true},
		{`{"enum": ["a", 1]}`, false},
		{`{"const": "x"}`, true},
		{`{}`, false},
		{`not json`, false},
	}
	for _, tt := range tests {
		t.Run(tt.schema, func(t *testing.T) {
			if got := schemaIsString(json.RawMessage(tt.schema)); got != tt.want {
				t.Errorf("schemaIsString(%s) = %v, want %v", tt.schema, got, tt.want)
			}
		})
	}
}
