package loop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
)

// forking is a scripted model that forks into another script, as the
// in-process client forks a slot for the task tool.
type forking struct {
	*model.Script
	child    model.Model
	released *int
}

func (f forking) CanFork() bool { return true }
func (f forking) Fork() (model.Model, func() error, error) {
	return f.child, func() error { *f.released++; return nil }, nil
}

func taskScript(t *testing.T, replies ...string) *model.Script {
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

func taskCall(name, args string) string {
	return fmt.Sprintf("<tool_call>\n{\"name\": %q, \"arguments\": %s}\n</tool_call>", name, args)
}

// TestTask runs seed 002 Example 10 with the real tools: the parent hands
// the search to a subagent, which greps and reads; only its answer comes
// back, and the parent's history holds the task call and that answer. New
// offers the task tool because the model forks and the 8K window plan
// searches by subagent.
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
	child := taskScript(t, taskCall("grep", `{"pattern": "Order.parse", "path": "."}`),
		taskCall("read_file", `{"path": "src/app/OrderController.java", "offset": 35, "limit": 10}`), answer)
	released := 0
	parent := taskScript(t, taskCall("task", `{"prompt": "Where are order ids parsed? Report file and line."}`),
		"The parsing happens in OrderController.java:41.")
	a, err := loop.New(forking{parent, child, &released}, loop.Settings{Dir: dir, Tools: "small", Window: 8192})
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

// TestTaskBadArgs: a task without a prompt is a result the model reads,
// and nothing forks.
func TestTaskBadArgs(t *testing.T) {
	dir := t.TempDir()
	released := 0
	parent := taskScript(t, taskCall("task", `{"prompt": " "}`), "Nothing to find.")
	a, err := loop.New(forking{parent, taskScript(t), &released}, loop.Settings{Dir: dir, Tools: "small", Window: 8192})
	if err != nil {
		t.Fatal(err)
	}
	a.Run(context.Background(), "Where are order ids parsed?")
	h := a.History()
	if len(h) < 3 || h[2].Role != "tool" || !strings.Contains(h[2].Content, "prompt") || released != 0 {
		t.Errorf("history %+v, released %d; want an error result naming prompt, no fork", h, released)
	}
}
