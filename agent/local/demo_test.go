package local_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/llama"
	"github.com/loopagent/loop/sampler"
)

// demoModel is the model file the repository ships (demo/; its manifest
// and hash are checked by scripts/demomodel's tests).
const demoModel = "../../demo/model.gguf"

// TestDemoModel loads the demo model the way loop run does and asks it,
// greedy and under the required grammar, for the first step of a bug fix:
// the file loads, its template renders the tools, and the reply is one
// complete call whose arguments parse.
func TestDemoModel(t *testing.T) {
	m, err := llama.LoadModel(context.Background(), demoModel, llama.ModelParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c, err := local.New(m, local.Options{ContextSize: 4096, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tools, err := chat.ParseTools([]byte(`[{"type": "function", "function": {"name": "read_file", "description": "Read a text file from the workspace",
  "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Complete(context.Background(), local.Request{
		Messages:   []chat.Message{{Role: "user", Content: "TestTotal fails in total.go. Fix it."}},
		Tools:      tools,
		ToolChoice: grammar.Choice{Mode: grammar.ChoiceRequired},
		MaxTokens:  64,
		Sampling:   model.Sampling{User: sampler.Overrides{Temperature: ptr(float32(0))}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.ToolCalls) != 1 || len(resp.Violations) != 0 || resp.FinishReason != "tool_calls" {
		t.Fatalf("want one complete call, got %+v (finish %s, violations %v)", resp.Message.ToolCalls, resp.FinishReason, resp.Violations)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(resp.Message.ToolCalls[0].Function.Arguments), &args); err != nil {
		t.Fatalf("arguments %q: %v", resp.Message.ToolCalls[0].Function.Arguments, err)
	}
	t.Logf("the demo model's first call: %s %s", resp.Message.ToolCalls[0].Function.Name, resp.Message.ToolCalls[0].Function.Arguments)
}
