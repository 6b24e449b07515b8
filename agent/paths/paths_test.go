package paths

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/grammar"
)

func workspace(t *testing.T, files ...string) *tools.Workspace {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := tools.NewWorkspace(dir, tools.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func defs(t *testing.T, set *tools.Set) []chat.Tool {
	t.Helper()
	ts, err := chat.ParseTools(set.Definitions())
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

// enumOf is the enum of a tool's property in a narrowed schema.
func enumOf(t *testing.T, ts []chat.Tool, tool, prop string) []string {
	t.Helper()
	for _, d := range ts {
		if d.Name != tool {
			continue
		}
		var s struct {
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(d.Parameters, &s); err != nil {
			t.Fatal(err)
		}
		return s.Properties[prop].Enum
	}
	t.Fatalf("no tool %s", tool)
	return nil
}

func TestNarrow(t *testing.T) {
	set := tools.Default()
	ds := defs(t, set)
	ws := workspace(t, "cart.go", "cart_test.go", "go.mod", ".git/HEAD")
	got := Narrow(context.Background(), ds, set, ws, nil)
	want := "cart.go cart_test.go go.mod"
	for _, tool := range []string{"read_file", "edit_file"} {
		if e := strings.Join(enumOf(t, got, tool, "path"), " "); e != want {
			t.Errorf("%s path enum = %q, want %q", tool, e, want)
		}
	}
	if e := enumOf(t, got, "write_file", "path"); e != nil {
		t.Errorf("write_file path enum = %v, want none: it creates files", e)
	}
	if e := enumOf(t, ds, "read_file", "path"); e != nil {
		t.Errorf("Narrow changed its input: read_file enum %v", e)
	}
	// The narrowed tools still compile into a call grammar, whose path
	// rule is the files' alternation.
	f, err := callformat.New("hermes", got)
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.Grammar(grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceRequired}})
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range []string{"tool-read-file-args-path", "tool-edit-file-args-path"} {
		want := rule + ` ::= ("\"cart.go\"" | "\"cart_test.go\"" | "\"go.mod\"") space`
		if !strings.Contains(g.GBNF, want+"\n") {
			t.Errorf("the grammar has no rule\n%s\n%s", want, g.GBNF)
		}
	}
}

func TestNarrowLeavesFree(t *testing.T) {
	set := tools.Default()
	ds := defs(t, set)
	ctx := context.Background()
	if got := Narrow(ctx, ds, set, workspace(t), nil); got != nil {
		t.Error("empty workspace: narrowed")
	}
	many := make([]string, MaxFiles+1)
	for i := range many {
		many[i] = fmt.Sprintf("d/f%03d.go", i)
	}
	if got := Narrow(ctx, ds, set, workspace(t, many...), nil); got != nil {
		t.Errorf("%d files: narrowed", MaxFiles+1)
	}
	small, err := set.Subset("shell")
	if err != nil {
		t.Fatal(err)
	}
	if got := Narrow(ctx, defs(t, small), small, workspace(t, "a.go"), nil); got != nil {
		t.Error("no file arguments: narrowed")
	}
}

// TestNarrowRead: a file the conversation read gets its own edit_file
// branch, whose old_string is a substring of the file's text now (\r\n
// read as \n); the other files keep a free old_string; read_file is not
// affected, nor is a file too large or gone.
func TestNarrowRead(t *testing.T) {
	set := tools.Default()
	ws := workspace(t, "cart.go", "cart_test.go", "go.mod", "big.txt")
	root := ws.Root()
	if err := os.WriteFile(filepath.Join(root, "cart.go"), []byte("package cart\r\nfunc A() int { return 1 }\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(strings.Repeat("x", MaxTextBytes+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	got := Narrow(context.Background(), defs(t, set), set, ws, []string{"cart.go", "big.txt", "gone.go", "cart.go"})
	var edit struct {
		AnyOf []struct {
			Properties struct {
				Path struct {
					Const string
					Enum  []string
				}
				OldString map[string]any `json:"old_string"`
			}
		}
	}
	for _, d := range got {
		if d.Name == "edit_file" {
			if err := json.Unmarshal(d.Parameters, &edit); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(edit.AnyOf) != 2 {
		t.Fatalf("edit_file: %d branches, want 2 (cart.go, the rest)", len(edit.AnyOf))
	}
	first, rest := edit.AnyOf[0].Properties, edit.AnyOf[1].Properties
	if first.Path.Const != "cart.go" || first.OldString[grammar.SubstringOf] != "package cart\nfunc A() int { return 1 }\n" {
		t.Errorf("cart.go branch: path %q, old_string %v", first.Path.Const, first.OldString)
	}
	if strings.Join(rest.Path.Enum, " ") != "big.txt cart_test.go go.mod" || rest.OldString[grammar.SubstringOf] != nil {
		t.Errorf("other files' branch: path enum %v, old_string %v", rest.Path.Enum, rest.OldString)
	}
	if e := enumOf(t, got, "read_file", "path"); len(e) != 4 {
		t.Errorf("read_file path enum %v, want the 4 files", e)
	}
	f, err := callformat.New("hermes", got)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Grammar(grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceRequired}}); err != nil {
		t.Fatal(err)
	}
}
