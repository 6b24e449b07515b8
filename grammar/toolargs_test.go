package grammar

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestArgsSchemaObject: a call's arguments are an object whatever the
// tool's schema leaves out. With "parameters": {} the grammar used to take
// any JSON value, so 42 passed as arguments.
func TestArgsSchemaObject(t *testing.T) {
	tests := []struct {
		name, params, same string // same: a schema that must give the same grammar
	}{
		{"empty object", `{}`, `{"type": "object"}`},
		{"spaced empty object", ` { } `, `{"type": "object"}`},
		{"null", `null`, `{"type": "object"}`},
		{"absent", ``, `{"type": "object"}`},
		{"properties without type", `{"properties": {"path": {"type": "string"}}, "required": ["path"]}`,
			`{"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := argsGrammar(t, tt.params)
			if diff := cmp.Diff(argsGrammar(t, tt.same), got); diff != "" {
				t.Errorf("ToolArgs(%q) differs from ToolArgs(%q) (-want +got):\n%s", tt.params, tt.same, diff)
			}
			if !json.Valid(ArgsSchema(json.RawMessage(tt.params))) {
				t.Errorf("ArgsSchema(%q) = %s, not JSON", tt.params, ArgsSchema(json.RawMessage(tt.params)))
			}
		})
	}
	if any, obj := argsGrammar(t, `{"description": "x"}`), argsGrammar(t, `{"type": ["object", "number"], "description": "x"}`); any == obj {
		t.Errorf("an explicit type is overridden")
	}
}

// argsGrammar is the GBNF of a tool's arguments.
func argsGrammar(t *testing.T, params string) string {
	t.Helper()
	b := NewBuilder(Options{})
	root, err := b.ToolArgs("f", json.RawMessage(params))
	if err != nil {
		t.Fatalf("ToolArgs(%q) = %v", params, err)
	}
	return b.GBNF(root)
}
