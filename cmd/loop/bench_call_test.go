package main

import (
	"context"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// TestCallPrompt: the edit-call row's prompt is the agent's step after a
// read of run.go, in the model's template: loop.New's system prompt with
// the repository map a 16K window gets, the task,
// the read call and its real result, the whole 40-line function numbered,
// and the assistant's turn open.
func TestCallPrompt(t *testing.T) {
	m, err := llama.LoadModel(context.Background(), testmodels.Path(t, testmodels.TinyQwen15F32), llama.ModelParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	toks, err := callPrompt(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	text, err := m.Detokenize(toks, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		loop.DefaultSystem, "# Repository map", "<|im_start|>user\n" + callTask + "<|im_end|>",
		`{"name": "read_file", "arguments": {"path": "run.go"}}`,
		"8| // Run runs the steps in order",
		"9| func Run(ctx context.Context, cfg Config) error {\n10| \tif err := step0(ctx, cfg); err != nil {\n",
		"46| \treturn nil\n47| }\n</tool_response>",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the edit-call prompt lacks %q:\n%s", want, text)
		}
	}
	if !strings.HasSuffix(text, "<|im_start|>assistant\n") {
		t.Errorf("the edit-call prompt ends %q, want the assistant's turn open", text[max(len(text)-60, 0):])
	}
	if n := strings.Count(callFile(), "\n"); n != 47 {
		t.Errorf("run.go has %d lines, want 47 (Run: lines 8 to 47)", n)
	}
}

// TestAnswerStep: the answer row's prompt is the agent's step after a read
// of run.go for answerTask, and what it offers an answer to copy is that
// read's result, run.go numbered as read_file shows it.
func TestAnswerStep(t *testing.T) {
	m, err := llama.LoadModel(context.Background(), testmodels.Path(t, testmodels.TinyQwen15F32), llama.ModelParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	st, err := stepAfterRead(context.Background(), m, answerTask)
	if err != nil {
		t.Fatal(err)
	}
	text, err := m.Detokenize(st.prompt, true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text, "<|im_start|>user\n"+answerTask+"<|im_end|>") || !strings.HasSuffix(text, "<|im_start|>assistant\n") {
		t.Errorf("the answer prompt lacks the task or the open assistant turn:\n%s", text)
	}
	if len(st.answer) != 1 {
		t.Fatalf("%d answer sources, want 1 (the read's result)", len(st.answer))
	}
	src, err := m.Detokenize(st.answer[0], false)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"9| func Run(ctx context.Context, cfg Config) error {", "\t\treturn fmt.Errorf(\"step 5: %w\", err)"} {
		if !strings.Contains(src, want) {
			t.Errorf("the answer source lacks %q:\n%s", want, src)
		}
	}
}
