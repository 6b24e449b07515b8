package model

import (
	"context"
	"errors"
	"testing"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/chat"
)

const readTool = `[{"type": "function", "function": {"name": "read_file", "description": "Read a file",
	"parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]`

func TestScript(t *testing.T) {
	tools, err := chat.ParseTools([]byte(readTool))
	if err != nil {
		t.Fatal(err)
	}
	call := "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.go\"}}\n</tool_call>"
	s, err := NewScript("hermes", []Reply{
		{Text: call},
		{Text: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"file\": \"a.go\"}}\n</tool_call>"},
		{Text: "<tool_call>\n{\"name\": \"read_file\", \"argu"},
		{Text: "It is done."},
	}, Branch{When: "CHANGE COURSE", Replies: []Reply{{Text: "Changed."}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	req := Request{Messages: []chat.Message{{Role: "user", Content: "read a.go"}}, Tools: tools}
	var streamed string
	req.OnDelta = func(d callformat.Delta) {
		if d.Call != nil {
			streamed += d.Call.Name + d.Call.Arguments
		}
	}
	tests := []struct {
		finish     string
		calls      int
		violations int
		content    string
	}{{"tool_calls", 1, 0, ""}, {"tool_calls", 1, 2, ""}, {"length", 0, 0, ""}, {"stop", 0, 0, "It is done."}}
	for i, tt := range tests {
		resp, err := s.Complete(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.FinishReason != tt.finish || len(resp.Message.ToolCalls) != tt.calls || len(resp.Violations) != tt.violations || resp.Message.Content != tt.content {
			t.Errorf("reply %d: finish %s, %d calls, violations %v, content %q; want %s, %d, %d, %q",
				i, resp.FinishReason, len(resp.Message.ToolCalls), resp.Violations, resp.Message.Content, tt.finish, tt.calls, tt.violations, tt.content)
		}
	}
	if streamed == "" {
		t.Errorf("no call deltas streamed")
	}
	if _, err := s.Complete(ctx, req); !errors.Is(err, ErrScriptEnd) {
		t.Errorf("past the end = %v, want ErrScriptEnd", err)
	}
	req.Messages = append(req.Messages, chat.Message{Role: "tool", Content: "result. CHANGE COURSE now"})
	if resp, err := s.Complete(ctx, req); err != nil || resp.Message.Content != "Changed." {
		t.Errorf("branch: %v, %v", resp, err)
	}
}

func TestParseScript(t *testing.T) {
	for _, tt := range []struct {
		name, in     string
		replies, brs int
		wantErr      bool
	}{
		{"strings", `["a", "b"]`, 2, 0, false},
		{"objects", `[{"text": "a", "finish_reason": "length"}, "b"]`, 2, 0, false},
		{"with branches", `{"replies": ["a"], "branches": [{"when": "x", "replies": ["b", "c"]}]}`, 1, 1, false},
		{"not a script", `42`, 0, 0, true},
		{"bad reply", `[1]`, 0, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, b, err := ParseScript([]byte(tt.in))
			if (err != nil) != tt.wantErr || (!tt.wantErr && (len(r) != tt.replies || len(b) != tt.brs)) {
				t.Errorf("ParseScript(%s) = %d replies, %d branches, %v", tt.in, len(r), len(b), err)
			}
		})
	}
}

func FuzzParseScript(f *testing.F) {
	f.Add(`["a"]`)
	f.Add(`{"replies": [{"text": "x"}], "branches": [{"when": "", "replies": []}]}`)
	f.Fuzz(func(t *testing.T, s string) { ParseScript([]byte(s)) })
}
