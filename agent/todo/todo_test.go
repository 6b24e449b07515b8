package todo

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSeedTodos: seed 002 Example 9, four scripted calls: a plan, an
// invalid status, two items in progress, an update.
func TestSeedTodos(t *testing.T) {
	var l List
	var sb strings.Builder
	for _, args := range []string{
		`{"todos":[{"content":"Read OrderServiceTest","status":"in_progress"},
		          {"content":"Add findAll to OrderService","status":"pending"},
		          {"content":"Run mvn test","status":"pending"}]}`,
		`{"todos":[{"content":"Read OrderServiceTest","status":"done"}]}`,
		`{"todos":[{"content":"Read OrderServiceTest","status":"completed"},
		          {"content":"Add findAll to OrderService","status":"in_progress"},
		          {"content":"Run mvn test","status":"in_progress"}]}`,
		`{"todos":[{"content":"Read OrderServiceTest","status":"completed"},
		          {"content":"Add findAll to OrderService","status":"completed"},
		          {"content":"Run mvn test","status":"in_progress"}]}`,
	} {
		text, _ := l.Call(args)
		sb.WriteString(text + "\n")
	}
	fmt.Fprintf(&sb, "stored: %d items\n", len(l.items))
	want, err := os.ReadFile(filepath.Join("testdata", t.Name(), "seed002_example09.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), sb.String()); diff != "" {
		t.Errorf("seed 002 Example 9 (read-only) mismatch (-seed +got):\n%s", diff)
	}
}

func TestCall(t *testing.T) {
	tests := []struct {
		name, args string
		want       string
		ok         bool
	}{
		{"empty list", `{"todos":[]}`, "todos 0/0 done", true},
		{"all done", `{"todos":[{"content":"a","status":"completed"}]}`, "todos 1/1 done\n[x] a", true},
		{"no todos", `{}`, `error: the arguments must be {"todos": [{"content": ..., "status": ..., "active_form": ...}, ...]}`, false},
		{"not json", `{"todos":`, `error: the arguments must be {"todos": [{"content": ..., "status": ..., "active_form": ...}, ...]}`, false},
		{"not an item", `{"todos":[3]}`, `error: todo 1 is not {"content": string, "status": string, "active_form": string}: 3`, false},
		{"missing status", `{"todos":[{"content":"a"}]}`, `error: invalid status "" for "a"; use pending, in_progress, or completed`, false},
		{"no content", `{"todos":[{"content":" ","status":"in_progress"}]}`, "error: todo 1 has no content", false},
		{"none in progress", `{"todos":[{"content":"a","status":"pending"},{"content":"b","status":"pending"}]}`,
			"error: no task is in_progress but 2 are pending; mark the one you work on now in_progress", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var l List
			got, ok := l.Call(tt.args)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Call(%s) = %q, %t; want %q, %t", tt.args, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestRejectedCall: a rejected call leaves the stored list as it was.
func TestRejectedCall(t *testing.T) {
	var l List
	if _, ok := l.Call(`{"todos":[{"content":"Run the tests","status":"in_progress","active_form":"Running the tests"}]}`); !ok {
		t.Fatal("Call rejected a valid list")
	}
	if _, ok := l.Call(`{"todos":[{"content":"x","status":"bad"}]}`); ok {
		t.Error("Call accepted the status bad")
	}
	if got := l.String(); got != "todos 0/1 done\n[>] Run the tests" {
		t.Errorf("String() = %q after a rejected call, want the list before it", got)
	}
}

func TestSchema(t *testing.T) {
	var v map[string]any
	if err := json.Unmarshal([]byte(Schema), &v); err != nil || Description == "" {
		t.Errorf("Schema is not JSON (%v) or Description is empty", err)
	}
}

// FuzzCall: any arguments give a result, never a panic; an accepted list
// is stored and renders one line per item.
func FuzzCall(f *testing.F) {
	f.Add(`{"todos":[{"content":"a","status":"in_progress"}]}`)
	f.Add(`{"todos":[{"content":"a","status":"done"}]}`)
	f.Add(`{"todos":null}`)
	f.Fuzz(func(t *testing.T, args string) {
		var l List
		text, ok := l.Call(args)
		if ok != !strings.HasPrefix(text, "error: ") {
			t.Fatalf("Call(%q) = %q, %t", args, text, ok)
		}
		if ok && strings.Count(text, "\n") != len(l.items) {
			t.Fatalf("Call(%q) rendered %q for %d items", args, text, len(l.items))
		}
	})
}
