package grammar

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/golden"
)

// schemaCases are the golden schemas: the seeds' tools and the cases
// llama-server gets wrong (seed 003). Each golden was read by hand once and
// is checked with llama.cpp's parser by the engine package's tests.
var schemaCases = []struct {
	name, schema string
}{
	{"seed004-example1-read-file", `{"type": "object", "properties": {"path": {"type": "string", "description": "Path relative to the workspace root"}}, "required": ["path"]}`},
	{"seed004-example2-no-additional", `{"type": "object", "properties": {"path": {"type": "string", "description": "Path relative to the workspace root"}}, "required": ["path"], "additionalProperties": false}`},
	{"seed000-example2-enum", `{"type": "object", "properties": {"path": {"type": "string", "enum": ["pom.xml", "src/Main.java"]}}, "required": ["path"]}`},
	{"seed004-example12-step", `{"oneOf": [
		{"type": "object", "properties": {"tool": {"const": "read_file"},
		  "arguments": {"type": "object", "properties": {"path": {"type": "string", "enum": ["pom.xml", "README.md"]}}, "required": ["path"], "additionalProperties": false}},
		 "required": ["tool", "arguments"], "additionalProperties": false},
		{"type": "object", "properties": {"answer": {"type": "string", "maxLength": 40}}, "required": ["answer"], "additionalProperties": false}]}`},
	{"seed000-example7-edit-file", `{"type": "object", "properties": {"path": {"type": "string", "description": "File path relative to the workspace root"},
		"old_string": {"type": "string", "description": "Exact text to replace"}, "new_string": {"type": "string", "description": "Replacement text"}},
		"required": ["path", "old_string", "new_string"]}`},
	{"empty-properties", `{"type": "object", "properties": {}}`},
	{"no-properties", `{"type": "object"}`},
	{"maxlength-2000", `{"type": "object", "properties": {"content": {"type": "string", "maxLength": 2000}}, "required": ["content"]}`},
	{"maxlength-524288", `{"type": "string", "maxLength": 524288}`},
	{"maxlength-524288-nested", `{"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "object", "properties": {"c": {"type": "string", "maxLength": 524288}}, "required": ["c"]}}, "required": ["b"]}}, "required": ["a"]}`},
	{"optional-before-required", `{"type": "object", "properties": {"verbose": {"type": "boolean"}, "command": {"type": "string"}}, "required": ["command"]}`},
	{"many-optional", `{"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"}, "d": {"type": "integer"}, "e": {"type": "integer"}, "f": {"type": "integer"}, "g": {"type": "integer"}}, "required": ["g"]}`},
	{"additional-schema", `{"type": "object", "properties": {"name": {"type": "string"}}, "additionalProperties": {"type": "integer"}}`},
	{"ref-defs", `{"$defs": {"entry": {"type": "object", "properties": {"path": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/entry"}}}, "required": ["path"]}}, "$ref": "#/$defs/entry"}`},
	{"allof", `{"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"properties": {"b": {"enum": ["x", "y"]}}}]}`},
	{"anyof-types", `{"anyOf": [{"type": "string", "minLength": 1}, {"type": "integer", "minimum": 0}], "description": "an id"}`},
	{"type-list", `{"type": ["string", "null"]}`},
	{"arrays", `{"type": "object", "properties": {"pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "number"}], "items": false},
		"tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3}}, "required": ["pair", "tags"]}`},
	{"integer-ranges", `{"type": "object", "properties": {"port": {"type": "integer", "minimum": 1, "maximum": 65535}, "delta": {"type": "integer", "exclusiveMinimum": -10, "exclusiveMaximum": 10}, "count": {"type": "integer", "minimum": 3}}, "required": ["port", "delta", "count"]}`},
	{"formats", `{"type": "object", "properties": {"day": {"type": "string", "format": "date"}, "at": {"type": "string", "format": "time"}, "when": {"type": "string", "format": "date-time"}, "id": {"type": "string", "format": "uuid"}, "mail": {"type": "string", "format": "email"}}, "required": ["day", "at", "when", "id", "mail"]}`},
	{"patterns", `{"type": "object", "properties": {"file": {"type": "string", "pattern": "^[a-z0-9_/]+\\.(go|java)$"}, "version": {"type": "string", "pattern": "^v\\d+(\\.\\d+){2}(-[^\"\\s]+)?$"}, "word": {"type": "string", "pattern": "err"}}, "required": ["file", "version", "word"]}`},
}

func TestSchemaGolden(t *testing.T) {
	for _, tc := range schemaCases {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuilder(Options{})
			r, err := b.Schema("args", "tool", json.RawMessage(tc.schema))
			if err != nil {
				t.Fatalf("Schema(%s): %v", tc.name, err)
			}
			gbnf := b.GBNF(b.Rule("root", r))
			g, err := Parse(gbnf)
			if err != nil {
				t.Fatalf("Parse(Schema(%s)): %v\n%s", tc.name, err, gbnf)
			}
			if err := g.Validate("root"); err != nil {
				t.Errorf("Validate(Schema(%s)): %v", tc.name, err)
			}
			var notes strings.Builder
			for _, n := range b.Notes() {
				fmt.Fprintf(&notes, "# note: %s\n", n)
			}
			golden.Check(t, tc.name+".gbnf", notes.String()+gbnf)
		})
	}
}

func TestToolCallGolden(t *testing.T) {
	read := Tool{Name: "read_file", Parameters: json.RawMessage(schemaCases[2].schema)}
	shell := Tool{Name: "shell", Parameters: json.RawMessage(`{"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}`)}
	tests := []struct {
		name  string
		opts  CallOptions
		tools []Tool
		fn    func(Format, []Tool, CallOptions) (*CallGrammar, error)
	}{
		{"required-single", CallOptions{Choice: Choice{Mode: ChoiceRequired}}, []Tool{read}, ToolCalls},
		{"required-parallel", CallOptions{Choice: Choice{Mode: ChoiceRequired}, Parallel: true}, []Tool{read, shell}, ToolCalls},
		{"required-max-3", CallOptions{Choice: Choice{Mode: ChoiceRequired}, Parallel: true, MaxCalls: 3}, []Tool{read, shell}, ToolCalls},
		{"auto-lazy", CallOptions{}, []Tool{read, shell}, ToolCalls},
		{"named-function", CallOptions{Choice: Choice{Mode: ChoiceFunction, Function: "shell"}}, []Tool{read, shell}, ToolCalls},
		{"required-reasoning", CallOptions{Choice: Choice{Mode: ChoiceRequired}, Reasoning: &Block{Open: "<think>", Close: "</think>"}}, []Tool{read}, ToolCalls},
		{"compact", CallOptions{Options: Options{Whitespace: WhitespaceCompact}, Choice: Choice{Mode: ChoiceRequired}}, []Tool{read}, ToolCalls},
		{"flexible", CallOptions{Options: Options{Whitespace: WhitespaceFlexible}, Choice: Choice{Mode: ChoiceRequired}}, []Tool{read}, ToolCalls},
		{"prompt-based", CallOptions{}, []Tool{read, shell}, func(_ Format, tools []Tool, o CallOptions) (*CallGrammar, error) { return PromptBased(tools, o) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := tt.fn(Hermes, tt.tools, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			pg, err := Parse(g.GBNF)
			if err != nil {
				t.Fatalf("Parse: %v\n%s", err, g.GBNF)
			}
			if err := pg.Validate("root"); err != nil {
				t.Errorf("Validate: %v", err)
			}
			head := fmt.Sprintf("# lazy: %v, triggers: %q\n", g.Lazy, g.Triggers)
			golden.Check(t, tt.name+".gbnf", head+g.GBNF)
		})
	}
	if g, err := ToolCalls(Hermes, []Tool{read}, CallOptions{Choice: Choice{Mode: ChoiceNone}}); g != nil || err != nil {
		t.Errorf("tool_choice none = %v, %v; want no grammar", g, err)
	}
}

func TestSchemaErrors(t *testing.T) {
	tests := []struct {
		name, schema, pointer, msg string
	}{
		{"not json", `{"type": `, "", "not JSON"},
		{"false", `false`, "/", "allows no value"},
		{"bad type", `{"type": "thing"}`, "/type", `unknown type "thing"`},
		{"bad nested type", `{"properties": {"a": {"properties": {"b": {"type": 7}}}}}`, "/properties/a/properties/b/type", "type must be"},
		{"remote ref", `{"$ref": "https://example.com/s.json"}`, "/$ref", "only local references"},
		{"missing ref", `{"$defs": {}, "$ref": "#/$defs/nope"}`, "/$ref", `no "nope"`},
		{"min above max", `{"type": "string", "minLength": 5, "maxLength": 2}`, "/", "no value fits"},
		{"lookahead", `{"type": "string", "pattern": "^(?=a)b$"}`, "/pattern", "lookaround"},
		{"backreference", `{"type": "string", "pattern": "^(a)\\1$"}`, "/pattern", `\1 is not supported`},
		{"word boundary", `{"type": "string", "pattern": "\\bword"}`, "/pattern", `\b is not supported`},
		{"inner anchor", `{"type": "string", "pattern": "^a$b"}`, "/pattern", "only at the ends"},
		{"allOf type conflict", `{"allOf": [{"type": "string"}, {"type": "integer"}]}`, "/allOf/1/type", "no value fits"},
		{"empty enum", `{"enum": []}`, "/enum", "non-empty"},
		{"integer bounds", `{"type": "integer", "minimum": 1.5}`, "/minimum", "must be an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder(Options{})
			_, err := b.Schema("args", "my_tool", json.RawMessage(tt.schema))
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrSchema) {
				t.Fatalf("Schema(%s) = %v, want an *Error wrapping ErrSchema", tt.schema, err)
			}
			if e.Subject != "my_tool" || (tt.pointer != "" && e.Pointer != tt.pointer) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Schema(%s) = %q (pointer %q), want tool my_tool, pointer %q, %q", tt.schema, err, e.Pointer, tt.pointer, tt.msg)
			}
		})
	}
}

// FuzzSchema compiles arbitrary JSON: the compiler never panics, and every
// grammar it emits parses and validates.
func FuzzSchema(f *testing.F) {
	for _, tc := range schemaCases {
		f.Add(tc.schema)
	}
	f.Add(`{"type": "string", "pattern": "^[a-\\]]*(x|y){2,3}?$"}`)
	f.Fuzz(func(t *testing.T, schema string) {
		b := NewBuilder(Options{})
		r, err := b.Schema("args", "fuzz", json.RawMessage(schema))
		if err != nil {
			return
		}
		gbnf := b.GBNF(b.Rule("root", r))
		g, err := Parse(gbnf)
		if err != nil {
			t.Fatalf("Schema(%q) emitted a grammar that does not parse: %v\n%s", schema, err, gbnf)
		}
		if err := g.Validate("root"); err != nil {
			t.Fatalf("Schema(%q) emitted an invalid grammar: %v\n%s", schema, err, gbnf)
		}
	})
}
