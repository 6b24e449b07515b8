package loop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/callformat"
	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/window"
	"github.com/loopagent/loop/internal/testmodels"
)

// renderCheck renders every request with templates that refuse a history
// without a user message after the system prompt (Llama 3.1 puts the tools
// in the first user message; Mistral Nemo demands alternating roles), as a
// chat server would, and counts the compactions it saw.
type renderCheck struct {
	model.Model
	t         *testing.T
	templates map[string]*chat.Template
	defs      []chat.Tool
	requests  int
}

func (r *renderCheck) Complete(ctx context.Context, req model.Request) (*model.Response, error) {
	r.requests++
	msgs := req.Messages
	i := 0
	for i < len(msgs) && msgs[i].Role == "system" {
		i++
	}
	if i == len(msgs) || msgs[i].Role != "user" {
		r.t.Errorf("request %d: no user message after the system prompt: %s", r.requests, roles(msgs))
	}
	for name, tmpl := range r.templates {
		format := callformat.Detect(tmpl).Format
		f, err := callformat.New(format, r.defs)
		if err != nil {
			r.t.Fatal(err)
		}
		fitted, _ := callformat.FitIDs(msgs, f)
		if _, err := tmpl.RenderPrompt(chat.PromptInput{Messages: fitted, Tools: r.defs, Format: format, AddGenerationPrompt: true}); err != nil {
			r.t.Errorf("request %d: %s does not render it: %v\n%s", r.requests, name, err, roles(msgs))
		}
	}
	return r.Model.Complete(ctx, req)
}

// TestSixtyToolSteps: a 60-step session on a 4,096-token window compacts
// many times, and every request still has the user's message after the
// system prompt, which the templates that demand one render (a chat
// server answers "no user query found in messages" otherwise).
func TestSixtyToolSteps(t *testing.T) {
	dir := t.TempDir()
	for i := range 6 {
		var b strings.Builder
		for l := range 120 {
			fmt.Fprintf(&b, "line %d of note %d: text that fills the window step after step\n", l, i)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note%d.txt", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var replies []string
	for i := range 60 {
		if i%2 == 0 {
			replies = append(replies, call(fmt.Sprintf(`{"name": "read_file", "arguments": {"path": "note%d.txt", "offset": %d}}`, i%6, 1+i)))
		} else {
			replies = append(replies, call(fmt.Sprintf(`{"name": "grep", "arguments": {"pattern": "line %d of", "path": "."}}`, i)))
		}
	}
	replies = append(replies, "The notes hold numbered lines.")
	const win = 4096
	ws, err := tools.NewWorkspace(dir, tools.Config{Window: win, Policy: tools.Policy{Yes: true}})
	if err != nil {
		t.Fatal(err)
	}
	defs, err := chat.ParseTools(tools.Default().Definitions())
	if err != nil {
		t.Fatal(err)
	}
	tmpls := map[string]*chat.Template{}
	for _, name := range []string{"meta-llama-Llama-3.1-8B-Instruct", "mistralai-Mistral-Nemo-Instruct-2407", "Qwen-Qwen3"} {
		tmpl, err := chat.NewTemplate(testmodels.ChatTemplate(t, name), "<s>", "</s>")
		if err != nil {
			t.Fatal(err)
		}
		tmpls[name] = tmpl
	}
	rec := &renderCheck{Model: hermesScript(t, replies, nil), t: t, templates: tmpls, defs: defs}
	summarize := func(ctx context.Context, prompt string) (string, error) {
		return "## Task\nRead the notes.\n## Progress\nRead several notes.", nil
	}
	a, err := loop.New(rec, loop.Settings{ToolSet: tools.Default(), Workspace: ws, MaxSteps: 70, Guards: loop.Guards{NoLoopGuard: true},
		Context: &window.Config{Window: win, Summarize: summarize}})
	if err != nil {
		t.Fatal(err)
	}
	out := a.Run(context.Background(), "What do the notes hold?")
	if out.Kind != loop.Done || out.Requests != 61 {
		t.Fatalf("outcome %s, want done after 61 requests", out)
	}
	if out.Compactions < 3 {
		t.Errorf("%d compactions, want several", out.Compactions)
	}
}

// TestQuestionRefusesEdit: a question is offered no tool that writes
// files, and a call to one (a model without the grammar can write it) is
// an unknown tool: nothing is written.
func TestQuestionRefusesEdit(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "calc.go"), []byte("package calc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.NewWorkspace(dir, tools.Config{})
	if err != nil {
		t.Fatal(err)
	}
	replies := []string{
		call(`{"name": "write_file", "arguments": {"path": "calc.go", "content": "package other\n"}}`),
		"calc.go declares package calc.",
	}
	var offered [][]string
	rec := &toolsSeen{Model: hermesScript(t, replies, nil), seen: &offered}
	a, err := loop.New(rec, loop.Settings{ToolSet: tools.Default(), Workspace: ws, NoContext: true})
	if err != nil {
		t.Fatal(err)
	}
	out := a.Run(context.Background(), "What package does calc.go declare?")
	if b, _ := os.ReadFile(filepath.Join(dir, "calc.go")); string(b) != "package calc\n" {
		t.Errorf("calc.go = %q after a question", b)
	}
	if out.Kind != loop.Done || len(offered) != 2 {
		t.Fatalf("outcome %s after %d requests, want done after 2", out, len(offered))
	}
	for i, names := range offered {
		if slices.Contains(names, "write_file") || slices.Contains(names, "edit_file") {
			t.Errorf("request %d offers %v", i+1, names)
		}
	}
}

// toolsSeen records the names of the tools each request offers.
type toolsSeen struct {
	model.Model
	seen *[][]string
}

func (r *toolsSeen) Complete(ctx context.Context, req model.Request) (*model.Response, error) {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	*r.seen = append(*r.seen, names)
	return r.Model.Complete(ctx, req)
}

// TestPromptTokensCorrectEstimate: without a tokenizer the window
// estimates the prompt, and the prompt_tokens a reply reports replace the
// estimate of what that request sent: a reply that says its prompt was
// near the window makes the next request compact, where the estimate of
// a few short messages never would.
func TestPromptTokensCorrectEstimate(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := call(`{"name": "read_file", "arguments": {"path": "a.txt"}}`)
	for _, reported := range []int{0, 3800} {
		replies := []model.Reply{{Text: read, PromptTokens: reported}, {Text: read}, {Text: "a.txt holds alpha."}}
		script, err := model.NewScript("hermes", replies)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := tools.NewWorkspace(dir, tools.Config{Window: 4096})
		if err != nil {
			t.Fatal(err)
		}
		summarize := func(ctx context.Context, prompt string) (string, error) { return "## Task\nRead a.txt.", nil }
		a, err := loop.New(script, loop.Settings{ToolSet: tools.Default(), Workspace: ws, Guards: loop.Guards{NoLoopGuard: true},
			Context: &window.Config{Window: 4096, Summarize: summarize}})
		if err != nil {
			t.Fatal(err)
		}
		out := a.Run(context.Background(), "What does a.txt hold?")
		if out.Kind != loop.Done {
			t.Fatalf("reported %d: outcome %s", reported, out)
		}
		if compacted := out.Compactions > 0; compacted != (reported > 0) {
			t.Errorf("reported prompt_tokens %d: %d compactions", reported, out.Compactions)
		}
	}
}
