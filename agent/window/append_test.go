package window

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/chat"
)

// TestAppendRemoveOff: Append keeps a message as it is and checks the
// pairs; Remove takes a run of messages out only when the pairs hold
// afterwards; Off keeps the history without caps, compaction or the fit
// check.
func TestAppendRemoveOff(t *testing.T) {
	call := func(id string) chat.Message {
		return chat.Message{Role: "assistant", ToolCalls: []chat.ToolCall{{ID: id, Type: "function", Function: chat.FunctionCall{Name: "shell", Arguments: "{}"}}}}
	}
	result := func(id, text string) chat.Message {
		return chat.Message{Role: "tool", ToolCallID: id, Name: "shell", Content: text}
	}
	m := New(Config{Window: 8192, System: chat.Message{Role: "system", Content: "sys"}, ToolCap: 10})
	long := strings.Repeat("x", 100)
	for _, msg := range []chat.Message{{Role: "user", Content: "task"}, call("a"), result("a", long), call("b"), result("b", "ok")} {
		if err := m.Append(msg); err != nil {
			t.Fatal(err)
		}
	}
	if got := m.History()[3].Content; got != long {
		t.Errorf("Append capped a result: %d characters", len(got))
	}
	if err := m.Append(result("zzz", "orphan")); err == nil {
		t.Error("Append took a result of no call")
	}
	if err := m.Remove(2, 3); err == nil {
		t.Error("Remove left a result without its call")
	}
	if err := m.Remove(2, 4); err != nil || m.Len() != 4 || m.History()[2].ToolCalls[0].ID != "b" {
		t.Errorf("Remove(2, 4) = %v, history %+v", err, m.History())
	}
	if err := m.Remove(0, 1); err == nil {
		t.Error("Remove took the system message")
	}
	off := New(Config{Off: true, Window: 100, System: chat.Message{Role: "system", Content: strings.Repeat("big ", 500)}})
	if err := off.Append(chat.Message{Role: "user", Content: "task"}); err != nil {
		t.Fatal(err)
	}
	r, err := off.Request(context.Background())
	if err != nil || errors.Is(err, ErrContextFull) || len(r.Messages) != 2 || r.Compaction != nil {
		t.Errorf("Off: Request = %+v, %v; want the history as it is", r, err)
	}
	if got := off.Cap("shell", long, false); got != long {
		t.Errorf("Off: Cap cut a result to %d characters", len(got))
	}
}
