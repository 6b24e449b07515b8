package loop_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/tools"
)

// schemaTool is a tool of a given schema that answers "ran".
type schemaTool struct {
	name, schema string
}

func (s schemaTool) Name() string            { return s.name }
func (s schemaTool) Description() string     { return "A tool with the schema under test." }
func (s schemaTool) Schema() json.RawMessage { return json.RawMessage(s.schema) }
func (s schemaTool) ReadOnly() bool          { return true }
func (s schemaTool) Run(context.Context, *tools.Workspace, json.RawMessage) (tools.Result, error) {
	return tools.Result{Content: "ran"}, nil
}

// TestMoreTools: MoreTools come after loop's own tools (after a ToolSet
// too); one whose schema the grammar cannot compile is left out with a
// warning naming it, and the others stay.
func TestMoreTools(t *testing.T) {
	more := []tools.Tool{
		schemaTool{"mcp__s__good", `{"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}`},
		schemaTool{"mcp__s__lookahead", `{"type": "object", "properties": {"q": {"type": "string", "pattern": "^(?=a)b$"}}}`},
		schemaTool{"mcp__s__bad_ref", `{"type": "object", "properties": {"q": {"$ref": "#/$defs/missing"}}}`},
	}
	small, _ := tools.Default().Subset(tools.ReadFileName)
	for _, tt := range []struct {
		name string
		s    loop.Settings
		want []string
	}{
		{"default tools", loop.Settings{Dir: t.TempDir(), MoreTools: more, NoRepoMap: true},
			[]string{"read_file", "edit_file", "write_file", "shell", "grep", "list_files", "mcp__s__good"}},
		{"a tool set", loop.Settings{Dir: t.TempDir(), ToolSet: small, MoreTools: more}, []string{"read_file", "mcp__s__good"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, err := loop.New(hermesScript(t, []string{"Done."}, nil), tt.s)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Setup().Tools; !slices.Equal(got, tt.want) {
				t.Errorf("tools %v; want %v", got, tt.want)
			}
			w := strings.Join(a.Warnings(), "\n")
			for _, left := range []string{"tool mcp__s__lookahead left out: ", "tool mcp__s__bad_ref left out: "} {
				if !strings.Contains(w, left) {
					t.Errorf("warnings %q; want %q", a.Warnings(), left)
				}
			}
		})
	}
}
