package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/llama"
)

// callSteps is how many steps callFile's Run makes: three lines each, so
// that the function, with its comment, signature and return, is 40 lines.
const callSteps = 12

// callFile is a Go file whose function Run is 40 lines long.
func callFile() string {
	var b strings.Builder
	b.WriteString("package run\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n\n")
	b.WriteString("// Run runs the steps in order, and stops at the first that fails.\n")
	b.WriteString("func Run(ctx context.Context, cfg Config) error {\n")
	for i := range callSteps {
		fmt.Fprintf(&b, "\tif err := step%d(ctx, cfg); err != nil {\n\t\treturn fmt.Errorf(\"step %d: %%w\", err)\n\t}\n", i, i)
	}
	b.WriteString("\treturn nil\n}\n")
	return b.String()
}

// callTask is what the user asks of callFile: a rename, which an agent
// does with one edit_file call whose old_string is the whole function as
// read_file showed it and whose new_string is the same 40 lines renamed.
const callTask = "Rename the parameter ctx of Run in run.go to c."

// callPrompt is the prompt of an agent's step after it read run.go for
// callTask, in the model's chat template and call format, with the
// agent's system prompt and tools, as `loop run` sends it: the model's
// next reply is the edit. The read is the real read_file tool's result.
// It returns nil, and no error, for a model without a chat template.
func callPrompt(ctx context.Context, m *llama.Model) ([]llama.Token, error) {
	if _, ok := m.ChatTemplate(""); !ok {
		return nil, nil
	}
	t, err := (&templateFlags{}).template(m, true)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "loop-bench-call-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "run.go"), []byte(callFile()), 0o644); err != nil {
		return nil, err
	}
	// At a 16K window read_file shows 76 lines, so the 47 of run.go come
	// whole, as one read of a file that size does in `loop run -c 16384`.
	ws, err := tools.NewWorkspace(dir, tools.Config{Window: 16384})
	if err != nil {
		return nil, err
	}
	set := tools.Default()
	args := `{"path":"run.go"}`
	read, err := set.Run(ctx, ws, tools.ReadFileName, json.RawMessage(args))
	if err != nil {
		return nil, err
	}
	if read.IsError {
		return nil, fmt.Errorf("read_file run.go: %s", read.Content)
	}
	defs, err := chat.ParseTools(set.Definitions())
	if err != nil {
		return nil, err
	}
	msgs := []chat.Message{
		{Role: "system", Content: loop.DefaultSystem},
		{Role: "user", Content: callTask},
		{Role: "assistant", NullContent: true, ToolCalls: []chat.ToolCall{{ID: "call_1", Type: "function",
			Function: chat.FunctionCall{Name: tools.ReadFileName, Arguments: args}}}},
		{Role: "tool", Content: read.Content, ToolCallID: "call_1", Name: tools.ReadFileName},
	}
	p, err := local.Prompt(t, chat.DetectFormat(t).Format, local.Request{Messages: msgs, Tools: defs})
	if err != nil {
		return nil, err
	}
	return local.Tokenize(m, p.Text)
}
