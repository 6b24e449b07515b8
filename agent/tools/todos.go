package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/loopagent/loop/agent/todo"
)

// Todos is the todos tool over one todo.List: the
// model sends the whole plan each time. Its list feeds the compaction
// summary (window.Config.Todos). The logic and the description are
// agent/todo's.
type Todos struct {
	mu   sync.Mutex
	list todo.List
}

func (*Todos) Name() string            { return todo.Name }
func (*Todos) Description() string     { return strings.TrimSpace(todo.Description) }
func (*Todos) Schema() json.RawMessage { return json.RawMessage(todo.Schema) }

// ReadOnly is false: the list is state, so two calls never run side by
// side.
func (*Todos) ReadOnly() bool { return false }

// Run stores the list; a rejected list is an error result naming the bad
// value.
func (t *Todos) Run(_ context.Context, _ *Workspace, args json.RawMessage) (Result, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	text, ok := t.list.Call(string(args))
	return Result{Content: text, IsError: !ok}, nil
}

// String is the current list, for the compaction summary.
func (t *Todos) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.list.String()
}
