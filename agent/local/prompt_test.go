package local_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/internal/testmodels"
)

// TestPromptIsWhatCompleteSends renders a round trip with parallel calls
// through local.Prompt, which `loop template` prints, and checks that
// Complete sends exactly that text, on the three templates that could not
// render it before the history rewrites.
func TestPromptIsWhatCompleteSends(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen15F32)
	tools, err := chat.ParseTools([]byte(seedTool))
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := chat.ParseMessages([]byte(`[{"role": "system", "content": "Use the tools."},
		{"role": "user", "content": "What is in pom.xml and src/Main.java?"},
		{"role": "assistant", "content": null, "tool_calls": [
			{"id": "call0abc1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"pom.xml\"}"}},
			{"id": "call0abc2", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"src/Main.java\"}"}}]},
		{"role": "tool", "tool_call_id": "call0abc1", "content": "<project>demo</project>"},
		{"role": "tool", "tool_call_id": "call0abc2", "content": "class Main {}"}]`))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"google-gemma-2-2b-it", "ibm-granite-granite-3.3-2B-Instruct", "meta-llama-Llama-3.1-8B-Instruct"} {
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join(testmodels.ChatTemplates(), name+".jinja"))
			if err != nil {
				t.Fatal(err)
			}
			c, err := local.New(m, local.Options{ContextSize: 2048, Threads: 1, ChatTemplate: string(src)})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			req := local.Request{Messages: msgs, Tools: tools, MaxTokens: 1}
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			bos, _ := m.TokenPiece(max(m.BOS(), 0), true)
			eos, _ := m.TokenPiece(max(m.EOS(), 0), true)
			tmpl, err := chat.NewTemplate(string(src), bos, eos)
			if err != nil {
				t.Fatal(err)
			}
			p, err := local.Prompt(tmpl, c.Detection().Format, req)
			if err != nil {
				t.Fatal(err)
			}
			if p.Text != resp.Prompt {
				t.Errorf("Prompt() = %q\nComplete sent %q", p.Text, resp.Prompt)
			}
			if len(p.Rewrites) == 0 {
				t.Errorf("Prompt() made no rewrite on %s", name)
			}
		})
	}
}
