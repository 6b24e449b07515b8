package loop_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/tools"
)

// keeper is a model that keeps every request it is sent.
type keeper struct {
	model.Model
	reqs []model.Request
}

func (r *keeper) Complete(ctx context.Context, req model.Request) (*model.Response, error) {
	r.reqs = append(r.reqs, req)
	return r.Model.Complete(ctx, req)
}

// pathEnum is read_file's path enum in a request's grammar tools.
func pathEnum(t *testing.T, req model.Request) []string {
	t.Helper()
	for _, d := range req.GrammarTools {
		if d.Name != "read_file" {
			continue
		}
		var s struct {
			Properties struct{ Path struct{ Enum []string } }
		}
		if err := json.Unmarshal(d.Parameters, &s); err != nil {
			t.Fatal(err)
		}
		return s.Properties.Path.Enum
	}
	return nil
}

// TestGrammarPaths: every request narrows read_file's path to the files
// that exist then, a file written during the run included; the prompt's
// tools stay as they are. NoPaths and NoGrammar send no narrowed tools.
func TestGrammarPaths(t *testing.T) {
	write := call(`{"name": "write_file", "arguments": {"path": "notes.txt", "content": "x\n"}}`)
	for _, tc := range []struct {
		name   string
		guards loop.Guards
		noGram bool
		want   [][]string
	}{
		{"default", loop.Guards{}, false, [][]string{
			{"calc.go", "calc_test.go", "go.mod"},
			{"calc.go", "calc_test.go", "go.mod"},
			{"calc.go", "calc_test.go", "go.mod", "notes.txt"},
			{"calc.go", "calc_test.go", "go.mod", "notes.txt"},
			{"calc.go", "calc_test.go", "go.mod", "notes.txt"},
		}},
		{"no paths", loop.Guards{NoPaths: true}, false, make([][]string, 5)},
		{"no grammar", loop.Guards{}, true, make([][]string, 5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &keeper{Model: hermesScript(t, []string{readCalc, write, editCalc, goTest, answer}, nil)}
			ws, err := tools.NewWorkspace(copyFixture(t), tools.Config{})
			if err != nil {
				t.Fatal(err)
			}
			a, err := loop.New(rec, loop.Settings{ToolSet: tools.Default(), Workspace: ws, Guards: tc.guards, NoGrammar: tc.noGram, NoContext: true})
			if err != nil {
				t.Fatal(err)
			}
			out := a.Run(context.Background(), "TestTotal fails in calc.go. Make the test pass.")
			if len(rec.reqs) != len(tc.want) {
				t.Fatalf("%d requests (%s), want %d", len(rec.reqs), out, len(tc.want))
			}
			for i, req := range rec.reqs {
				if got := pathEnum(t, req); !slices.Equal(got, tc.want[i]) {
					t.Errorf("request %d: path enum %v, want %v", i+1, got, tc.want[i])
				}
				if len(req.Tools) != len(tools.Default().Names()) || pathEnum(t, model.Request{GrammarTools: req.Tools}) != nil {
					t.Errorf("request %d: the prompt's tools changed", i+1)
				}
			}
		})
	}
}
