package subagent_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/subagent"
	"github.com/loopagent/loop/agent/tools"
)

func script(t *testing.T, replies ...string) *model.Script {
	t.Helper()
	rs := make([]model.Reply, len(replies))
	for i, r := range replies {
		rs[i] = model.Reply{Text: r}
	}
	s, err := model.NewScript("hermes", rs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func call(name, args string) string {
	return fmt.Sprintf("<tool_call>\n{\"name\": %q, \"arguments\": %s}\n</tool_call>", name, args)
}

// TestTask runs seed 002 Example 10 with the real tools: the parent hands
// the search to a subagent, which greps and reads; only its answer comes
// back, and the parent's history holds the task call and that answer.
func TestTask(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	for i := 1; i <= 90; i++ {
		if i == 41 {
			src.WriteString("        Order order = Order.parse(id);\n")
			continue
		}
		fmt.Fprintf(&src, "        // line %d of the controller\n", i)
	}
	if err := os.MkdirAll(filepath.Join(dir, "src/app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src/app/OrderController.java"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const answer = "Order ids are parsed only in src/app/OrderController.java line 41 via Order.parse(id)."
	child := script(t, call("grep", `{"pattern": "Order.parse", "path": "."}`),
		call("read_file", `{"path": "src/app/OrderController.java", "offset": 35, "limit": 10}`), answer)
	released := 0
	task := subagent.Tool{Model: func() (model.Model, func() error, error) {
		return child, func() error { released++; return nil }, nil
	}}
	set, err := tools.NewSet(tools.ReadFile{}, tools.EditFile{}, tools.Shell{}, task)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := tools.NewWorkspace(dir, tools.Config{})
	if err != nil {
		t.Fatal(err)
	}
	parent := script(t, call("task", `{"prompt": "Where are order ids parsed? Report file and line."}`),
		"The parsing happens in OrderController.java:41.")
	a, err := loop.New(loop.Config{Model: parent, Tools: set, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	out := a.Run(context.Background(), "Where are order ids parsed?")
	if out.Kind != loop.Done || child.Requests() != 3 || released != 1 {
		t.Fatalf("outcome %s, %d subagent requests, released %d times; want done, 3 and 1", out, child.Requests(), released)
	}
	h := a.History()
	if len(h) != 4 || h[2].Role != "tool" || h[2].Content != answer {
		t.Fatalf("parent history: %+v; want task, call, the subagent's answer, answer", h)
	}
}

// TestTaskBadArgs: a task without a prompt is a result the model reads.
func TestTaskBadArgs(t *testing.T) {
	ws, err := tools.NewWorkspace(t.TempDir(), tools.Config{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := subagent.Tool{}.Run(context.Background(), ws, []byte(`{"prompt": " "}`))
	if err != nil || !r.IsError || !strings.Contains(r.Content, "prompt") {
		t.Errorf("Run = %+v, %v; want an error result naming prompt", r, err)
	}
}
