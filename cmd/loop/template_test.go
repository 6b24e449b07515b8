package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/testmodels"
)

// longIDConversation writes a conversation whose call has a 32-character
// id, as llama-server and loop's other formats give, and one tool, and
// returns the two files.
func longIDConversation(t *testing.T, id string) (conv, tools string) {
	t.Helper()
	dir := t.TempDir()
	conv, tools = filepath.Join(dir, "conv.json"), filepath.Join(dir, "tools.json")
	os.WriteFile(conv, []byte(`[{"role": "user", "content": "What is in pom.xml?"},
		{"role": "assistant", "content": null, "tool_calls": [{"id": "`+id+`", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"pom.xml\"}"}}]},
		{"role": "tool", "tool_call_id": "`+id+`", "content": "<project>demo</project>"},
		{"role": "assistant", "content": "It is a Maven project."},
		{"role": "user", "content": "And src/Main.java?"}]`), 0o644)
	os.WriteFile(tools, []byte(`[{"type": "function", "function": {"name": "read_file", "description": "Read a text file.", "parameters": {"type": "object", "properties": {"path": {"type": "string", "enum": ["pom.xml", "src/Main.java"]}}, "required": ["path"]}}}]`), 0o644)
	return conv, tools
}

// TestTemplateMistralLongID: the Mistral Nemo template raises on a call id
// that is not 9 alphanumeric characters. loop template renames the
// history's 32-character id for the prompt, the call and its result alike,
// and says so, with and without the generation prompt.
func TestTemplateMistralLongID(t *testing.T) {
	const long = "760izblm3iA8z54miRDQttP6bf5d1OuD"
	model := testmodels.Path(t, testmodels.TinyQwen15F32)
	conv, tools := longIDConversation(t, long)
	nemo := filepath.Join(testmodels.ChatTemplates(), "mistralai-Mistral-Nemo-Instruct-2407.jinja")
	for _, extra := range [][]string{nil, {"--no-generation-prompt"}} {
		args := append([]string{"template", "-m", model, "--messages", conv, "--tools", tools, "--chat-template-file", nemo, "--json"}, extra...)
		code, out, errOut := runLoop(t, args...)
		var r templateReport
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("loop %s = %d: %s %s", strings.Join(args, " "), code, out, errOut)
		}
		if r.Format.Format != "mistral" || strings.Contains(r.Prompt, long) {
			t.Errorf("loop template %v: format %s, prompt:\n%s", extra, r.Format.Format, r.Prompt)
		}
		i := strings.Index(r.Prompt, `"call_id": "`)
		if i < 0 {
			t.Fatalf("loop template %v: no tool result in the prompt:\n%s", extra, r.Prompt)
		}
		id := r.Prompt[i+len(`"call_id": "`):][:9]
		if !strings.Contains(r.Prompt, `"id": "`+id+`"}]`) {
			t.Errorf("loop template %v: the call and its result have different ids:\n%s", extra, r.Prompt)
		}
		if len(r.Rewrites) == 0 || !strings.HasPrefix(r.Rewrites[0], "call ids renamed (1)") {
			t.Errorf("loop template %v: rewrites %q, want the renamed id first", extra, r.Rewrites)
		}
	}
}
