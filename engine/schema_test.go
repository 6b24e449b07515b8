package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// accepts reports whether llama.cpp's grammar engine accepts text in full:
// every token of it is allowed, and end-of-generation is allowed after it.
func accepts(t *testing.T, m *llama.Model, gbnf, text string) bool {
	t.Helper()
	g, err := m.NewGrammar(gbnf, "root")
	if err != nil {
		t.Fatalf("llama.cpp rejects the grammar: %v\n%s", err, gbnf)
	}
	defer g.Close()
	toks, err := m.Tokenize(text, false, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range toks {
		if !g.Allows(tok) || g.Accept(tok) != nil {
			return false
		}
	}
	return g.Allows(m.EOS())
}

func schemaGrammar(t *testing.T, schema string, opts grammar.Options) (string, []grammar.Note) {
	t.Helper()
	b := grammar.NewBuilder(opts)
	r, err := b.Schema("args", "tool", json.RawMessage(schema))
	if err != nil {
		t.Fatalf("Schema(%s): %v", schema, err)
	}
	return b.GBNF(b.Rule("root", r)), b.Notes()
}

// TestSchemaCasesInLlama checks the cases llama-server gets wrong, with
// llama.cpp's own grammar engine deciding what is accepted.
func TestSchemaCasesInLlama(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	long := func(n int) string { return `"` + strings.Repeat("x", n) + `"` }
	tests := []struct {
		name    string
		schema  string
		accept  []string
		reject  []string
		noteHas string
	}{
		{"empty properties", `{"type": "object", "properties": {}}`, []string{`{}`, `{"any": 1}`}, []string{`[]`}, ""},
		{"no properties", `{"type": "object"}`, []string{`{}`, `{"a": [1, 2]}`}, []string{`"x"`}, ""},
		{"empty properties, no extras", `{"type": "object", "properties": {}, "additionalProperties": false}`, []string{`{}`}, []string{`{"a": 1}`}, ""},
		{"optional before required", `{"type": "object", "properties": {"verbose": {"type": "boolean"}, "command": {"type": "string"}}, "required": ["command"]}`,
			[]string{`{"verbose": true, "command": "ls"}`, `{"command": "ls", "verbose": false}`, `{"command": "ls"}`},
			[]string{`{"verbose": true}`, `{"verbose": true, "verbose": false, "command": "ls"}`, `{"command": "ls", "command": "ls"}`}, ""},
		{"optional any order", `{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}}}`,
			[]string{`{"c": 3, "a": 1}`, `{"b": 2, "c": 3, "a": 1}`, `{}`}, []string{`{"a": 1, "a": 2}`}, ""},
		{"maxLength 2000", `{"type": "string", "maxLength": 2000}`, []string{long(2000), long(0)}, []string{long(2001)}, ""},
		{"maxLength 524288", `{"type": "string", "maxLength": 524288}`, []string{long(3000)}, nil, "maxLength 524288 is above the grammar limit"},
		{"maxLength 2000 nested", `{"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "object", "properties": {"c": {"type": "string", "maxLength": 2000}}, "required": ["c"]}}, "required": ["b"]}}, "required": ["a"]}`,
			[]string{`{"a": {"b": {"c": ` + long(2000) + `}}}`}, []string{`{"a": {"b": {"c": ` + long(2001) + `}}}`}, ""},
		{"maxLength 524288 nested", `{"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "object", "properties": {"c": {"type": "string", "maxLength": 524288}}, "required": ["c"]}}, "required": ["b"]}}, "required": ["a"]}`,
			[]string{`{"a": {"b": {"c": ` + long(2500) + `}}}`}, nil, "/properties/a/properties/b/properties/c/maxLength"},
		{"enum", `{"type": "string", "enum": ["pom.xml", "src/Main.java"]}`, []string{`"pom.xml"`}, []string{`"README.md"`}, ""},
		{"substring of a file", `{"type": "string", "x-substring-of": "func Charge(unit, count int) int {\n\treturn unit + count\n}\n// say \"hi\" \\ é"}`,
			[]string{`"return unit + count"`, `"unit + count\n}"`, `"{\n\treturn"`, `"f"`, `"\"hi\" \\ é"`, `"func Charge(unit, count int) int {\n\treturn unit + count\n}\n// say \"hi\" \\ é"`},
			[]string{`""`, `"return unit * count"`, `"return  unit"`, `"count\n\treturn"`, `"\treturn unit + count\n}x"`, `"}\n}"`}, ""},
		{"substring of code with < > &", `{"type": "string", "x-substring-of": "if a < b && <-ch > 0 {"}`,
			[]string{`"a < b && <-ch"`, `"> 0 {"`}, []string{`"a \u003c b"`, `"b &&& c"`}, ""},
		{"substring of a repetitive text", `{"type": "string", "x-substring-of": "abcbcabcab"}`,
			[]string{`"bcbca"`, `"cabca"`, `"abcab"`, `"abcbcabcab"`, `"cb"`}, []string{`"cc"`, `"aa"`, `"bcbcb"`, `"abcabc"`}, ""},
		{"integer range", `{"type": "integer", "minimum": -5, "maximum": 120}`, []string{`-5`, `0`, `120`, `99`}, []string{`121`, `-6`, `007`}, ""},
		{"pattern", `{"type": "string", "pattern": "^[a-z]+(\\.go|_test\\.go)$"}`, []string{`"main.go"`, `"a_test.go"`}, []string{`"Main.go"`, `"main.c"`}, ""},
		{"date-time", `{"type": "string", "format": "date-time"}`, []string{`"2026-11-30T04:00:00Z"`}, []string{`"yesterday"`}, ""},
		{"uuid", `{"type": "string", "format": "uuid"}`, []string{`"123e4567-e89b-12d3-a456-426614174000"`}, []string{`"123"`}, ""},
		{"ref and defs", `{"$defs": {"p": {"type": "string", "enum": ["a", "b"]}}, "type": "array", "items": {"$ref": "#/$defs/p"}, "minItems": 1, "maxItems": 2}`,
			[]string{`["a"]`, `["a", "b"]`}, []string{`[]`, `["a", "b", "a"]`, `["c"]`}, ""},
		{"allOf merge", `{"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"properties": {"b": {"type": "boolean"}}, "required": ["b"]}]}`,
			[]string{`{"a": 1, "b": true}`}, []string{`{"a": 1}`}, ""},
		{"oneOf", `{"oneOf": [{"type": "string"}, {"type": "null"}]}`, []string{`"x"`, `null`}, []string{`1`}, ""},
		{"prefixItems", `{"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": false}`, []string{`[1, "a"]`}, []string{`[1]`, `["a", 1]`}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gbnf, notes := schemaGrammar(t, tt.schema, grammar.Options{})
			for _, s := range tt.accept {
				if !accepts(t, m, gbnf, s) {
					t.Errorf("grammar of %s rejects %s\n%s", tt.schema, s, gbnf)
				}
			}
			for _, s := range tt.reject {
				if accepts(t, m, gbnf, s) {
					t.Errorf("grammar of %s accepts %s", tt.schema, s)
				}
			}
			if tt.noteHas != "" && !strings.Contains(fmt.Sprint(notes), tt.noteHas) {
				t.Errorf("notes %v do not report %q", notes, tt.noteHas)
			}
		})
	}
}

func TestInvalidToolSchemaNamesTool(t *testing.T) {
	tools := []grammar.Tool{
		readFileTool,
		{Name: "broken", Parameters: json.RawMessage(`{"type": "object", "properties": {"n": {"type": "integer", "minimum": 5, "maximum": 1}}}`)},
	}
	_, err := grammar.ToolCalls(grammar.Hermes, tools, grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceRequired}})
	var ge *grammar.Error
	if !errors.As(err, &ge) || ge.Subject != "broken" || ge.Pointer != "/properties/n" || !errors.Is(err, grammar.ErrSchema) {
		t.Fatalf("ToolCalls with one broken schema = %v, want an error naming tool broken at /properties/n", err)
	}
	t.Log(err)
}

// TestManyTools compiles the required grammar of 60 and 100 tools of real
// size (llama.cpp #30056 failed before the first token) and samples the
// first token under it.
func TestManyTools(t *testing.T) {
	m := load(t, testmodels.TinyQwen3F16)
	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 256, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	slot, _ := llama.NewSlot(c, 0)
	prompt, _ := m.Tokenize("<|im_start|>assistant\n", false, true)
	for _, n := range []int{60, 100} {
		tools := realTools(n)
		size := 0
		for _, tl := range tools {
			size += len(tl.Parameters)
		}
		cg, err := grammar.ToolCalls(grammar.Hermes, tools, grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceRequired}})
		if err != nil {
			t.Fatalf("%d tools: %v", n, err)
		}
		g, err := engine.CompileCalls(m, cg)
		if err != nil {
			t.Fatalf("%d tools: llama.cpp: %v", n, err)
		}
		ch := defaultChain(t, 1)
		res, err := engine.Generate(context.Background(), slot, engine.Request{Prompt: prompt, Chain: ch, Grammar: g, NPredict: 1})
		if err != nil || len(res.Tokens) != 1 {
			t.Fatalf("%d tools: first token: %v, %v", n, res, err)
		}
		if !strings.HasPrefix("<tool_call>\n", res.Text) {
			t.Errorf("%d tools: first token %q does not start a call", n, res.Text)
		}
		t.Logf("%d tools, %d bytes of schema: grammar %d bytes, first token %q", n, size, len(cg.GBNF), res.Text)
		ch.Close()
		g.Close()
	}
}

// TestLazyTriggers checks tool_choice auto: text before the trigger is free,
// the call after it follows the grammar. In the Qwen3 vocabulary
// <tool_call> is one token and becomes a trigger token; in the Qwen1.5
// vocabulary it is four, and becomes a pattern.
func TestLazyTriggers(t *testing.T) {
	for _, name := range []string{testmodels.TinyQwen3F16, testmodels.TinyQwen15F32} {
		t.Run(name, func(t *testing.T) {
			m := load(t, name)
			cg, err := grammar.ToolCalls(grammar.Hermes, []grammar.Tool{readFileTool}, grammar.CallOptions{})
			if err != nil || !cg.Lazy {
				t.Fatalf("auto grammar: lazy %v, %v", cg != nil && cg.Lazy, err)
			}
			g, err := engine.CompileCalls(m, cg)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			free, _ := m.Tokenize("I will look at the build file first. ", false, false)
			trigger, _ := m.Tokenize("<tool_call>", false, true)
			for _, tok := range append(free, trigger...) {
				if !g.Allows(tok) {
					t.Fatalf("token %d before or at the trigger was refused", tok)
				}
				if err := g.Accept(tok); err != nil {
					t.Fatal(err)
				}
			}
			nl, _ := m.Tokenize("\n{", false, false)
			word, _ := m.Tokenize("hello", false, false)
			if !g.Allows(nl[0]) || g.Allows(word[0]) {
				t.Errorf("after the trigger: Allows(newline) %v, Allows(hello) %v; want true, false", g.Allows(nl[0]), g.Allows(word[0]))
			}
		})
	}
}

// TestCompileGrammarRefusesWhatCrashesLlama checks grammars that pass
// llama.cpp's approximate left-recursion check and then overflow its stack:
// CompileGrammar refuses them before llama.cpp sees them.
func TestCompileGrammarRefusesWhatCrashesLlama(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	for _, gbnf := range []string{
		`root ::= ("a"?)*`,
		"root ::= b+\nb ::= ()",
		"root ::= b*\nb ::= c\nc ::= \"x\" |",
	} {
		g, err := engine.CompileGrammar(m, gbnf)
		if err == nil {
			g.Close()
			t.Errorf("CompileGrammar(%q) succeeded; llama.cpp would overflow its stack on it", gbnf)
		}
	}
	if _, err := grammar.ToolCalls(grammar.Hermes, []grammar.Tool{{Name: "t", Parameters: json.RawMessage(`{"type": "string", "pattern": "^(a|)*$"}`)}},
		grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceRequired}}); err == nil || !strings.Contains(err.Error(), "can be empty") {
		t.Errorf("a pattern with a repeated empty group = %v, want an error", err)
	}
}
