package transcript

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
)

// TestConversation rebuilds a conversation from history events that add
// messages, replace them from an earlier one, and start over, and keeps a
// null content null.
func TestConversation(t *testing.T) {
	task := chat.Message{Role: "user", Content: "fix it"}
	call := chat.Message{Role: "assistant", NullContent: true, ToolCalls: []chat.ToolCall{{ID: "c1", Type: "function", Function: chat.FunctionCall{Name: "read_file", Arguments: `{"path":"a.go"}`}}}}
	result := chat.Message{Role: "tool", ToolCallID: "c1", Name: "read_file", Content: "1| package a"}
	summary := chat.Message{Role: "user", Content: "summary"}
	answer := chat.Message{Role: "assistant", Content: "done", ReasoningContent: "so"}
	ev := func(from int, msgs ...chat.Message) Event {
		b, err := json.Marshal(msgs)
		if err != nil {
			t.Fatal(err)
		}
		return Event{Kind: KindHistory, From: from, History: b}
	}
	tests := []struct {
		name   string
		events []Event
		want   []chat.Message
	}{
		{"added", []Event{ev(0, task), {Kind: KindReply, Text: "x"}, ev(1, call, result), ev(3, answer)}, []chat.Message{task, call, result, answer}},
		{"replaced", []Event{ev(0, task, call, result), ev(1, summary), ev(2, answer)}, []chat.Message{task, summary, answer}},
		{"a second run's snapshot", []Event{ev(0, task, call), ev(0, task, call, result)}, []chat.Message{task, call, result}},
		{"none", []Event{{Kind: KindTask, Task: "x"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Conversation(tt.events)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Conversation differs (-want +got):\n%s", d)
			}
		})
	}
	if _, err := Conversation([]Event{ev(0, task), ev(2, answer)}); err == nil {
		t.Errorf("Conversation(from 2 of 1 message) = nil error, want one")
	}
}
