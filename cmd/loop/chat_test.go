package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/testmodels"
)

// TestChatDuplicateID: loop chat refuses a history with two calls of one
// id in two messages, as a live run used to write it, and a result of no
// earlier call, naming the id, before it loads the model.
func TestChatDuplicateID(t *testing.T) {
	const same = "760izblm3iA8z54miRDQttP6bf5d1OuD"
	turn := func(id string) string {
		return `{"role": "assistant", "content": null, "tool_calls": [{"id": "` + id + `", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"pom.xml\"}"}}]},
			{"role": "tool", "tool_call_id": "` + id + `", "content": "<project>demo</project>"}`
	}
	tests := []struct {
		name, messages, want string
	}{
		{"duplicate", `[{"role": "user", "content": "What is in pom.xml?"}, ` + turn(same) + `, ` + turn(same) + `]`,
			`message 3: duplicate call id "` + same + `": message 1 has a call with this id`},
		{"orphan", `[{"role": "user", "content": "What is in pom.xml?"}, {"role": "tool", "tool_call_id": "abc", "content": "x"}]`,
			`message 1: tool result for no earlier call: id "abc"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conv := filepath.Join(t.TempDir(), "conv.json")
			os.WriteFile(conv, []byte(tt.messages), 0o644)
			code, out, errOut := runLoop(t, "chat", "-m", filepath.Join(t.TempDir(), "absent.gguf"), "--messages", conv)
			if code != 1 || !strings.Contains(errOut, tt.want) {
				t.Errorf("loop chat = %d, %q %q; want 1 and %q", code, out, errOut, tt.want)
			}
		})
	}
}

// TestChatMistralLongID: loop chat on the Mistral Nemo template with a
// 32-character id in the history renders (the template raised before),
// and the reply's call has a 9-character id of its own.
func TestChatMistralLongID(t *testing.T) {
	const long = "760izblm3iA8z54miRDQttP6bf5d1OuD"
	model := testmodels.Path(t, testmodels.TinyQwen15F32)
	conv, tools := longIDConversation(t, long)
	nemo := filepath.Join(testmodels.ChatTemplates(), "mistralai-Mistral-Nemo-Instruct-2407.jinja")
	code, out, errOut := runLoop(t, "chat", "-m", model, "--messages", conv, "--tools", tools, "--chat-template-file", nemo,
		"--tool-choice", "required", "-n", "120", "--seed", "1", "-t", "1", "--json")
	var r chatResponse
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || len(r.Choices) != 1 {
		t.Fatalf("loop chat = %d: %s %s", code, out, errOut)
	}
	calls := r.Choices[0].Message.ToolCalls
	if r.Format != "mistral" || len(calls) != 1 || len(calls[0].ID) != 9 {
		t.Errorf("loop chat: format %s, calls %+v", r.Format, calls)
	}
}
