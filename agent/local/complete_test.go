package local_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// loadModel opens a generated model for the test.
func loadModel(t *testing.T, name string) *llama.Model {
	t.Helper()
	m, err := llama.LoadModel(context.Background(), testmodels.Path(t, name), llama.ModelParams{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// client makes a one-thread client, with the given template source or the
// model's own.
func client(t *testing.T, m *llama.Model, template string) *local.Client {
	t.Helper()
	c, err := local.New(m, local.Options{ContextSize: 2048, Threads: 1, ChatTemplate: template})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func userMessages(t *testing.T, raw string) []chat.Message {
	t.Helper()
	msgs, err := chat.ParseMessages([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// TestOneBOS renders with the Llama 3.1 template, which writes
// <|begin_of_text|> itself, for the Llama 3 vocabulary, which adds BOS
// when tokenizing: the prompt used to start with two (37 tokens in
// `loop chat`, 36 in `loop template`). A template that writes no BOS
// (Qwen 2.5's) gets exactly the tokenizer's.
func TestOneBOS(t *testing.T) {
	m := loadModel(t, testmodels.TinyLlama3Q8)
	msgs := userMessages(t, `[{"role": "user", "content": "What is in pom.xml?"}]`)
	qwen, err := os.ReadFile(filepath.Join(testmodels.ChatTemplates(), "Qwen-Qwen2.5-7B-Instruct.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, template string
	}{{"template writes BOS", ""}, {"template writes none", string(qwen)}} {
		t.Run(tt.name, func(t *testing.T) {
			c := client(t, m, tt.template)
			resp, err := c.Complete(context.Background(), local.Request{Messages: msgs, MaxTokens: 1})
			if err != nil {
				t.Fatal(err)
			}
			toks, err := local.Tokenize(m, resp.Prompt)
			if err != nil {
				t.Fatal(err)
			}
			if toks[0] != m.BOS() || toks[1] == m.BOS() {
				t.Errorf("the prompt starts %v; want one BOS (%d)", toks[:3], m.BOS())
			}
			if resp.Usage.PromptTokens != len(toks) {
				t.Errorf("Complete sent %d prompt tokens, Tokenize counts %d", resp.Usage.PromptTokens, len(toks))
			}
		})
	}
}

// TestReasoningWithoutTools continues a Qwen3 reply that thinks, without
// tools and with tool_choice none: the reasoning must still be split from
// the content. The plain text stream used for such requests put it all in
// the content.
func TestReasoningWithoutTools(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen3F16)
	c := client(t, m, "")
	tools, err := chat.ParseTools([]byte(seedTool))
	if err != nil {
		t.Fatal(err)
	}
	msgs := userMessages(t, `[{"role": "user", "content": "Hi"},
		{"role": "assistant", "content": "<think>\nThe user says hi.\n</think>\n\nHello"}]`)
	for _, tt := range []struct {
		name  string
		tools []chat.Tool
	}{{"no tools", nil}, {"tool_choice none", tools}} {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.Complete(context.Background(), local.Request{Messages: msgs, Tools: tt.tools,
				ToolChoice: grammar.Choice{Mode: grammar.ChoiceNone}, MaxTokens: 2})
			if err != nil {
				t.Fatal(err)
			}
			msg := resp.Message
			if msg.ReasoningContent != "The user says hi." || !strings.HasPrefix(msg.Content, "Hello") || strings.Contains(msg.Content, "think") {
				t.Errorf("reasoning %q, content %q; want the reasoning apart", msg.ReasoningContent, msg.Content)
			}
		})
	}
}

// TestValidateOnlyAllowedCalls: a reply cut by the token limit without a
// call has nothing to validate (it used to report "the last call may be
// incomplete"), and a schema that does not compile is refused before
// anything is generated, whatever tool_choice says (with none it used to
// come back as a violation of a successful completion).
func TestValidateOnlyAllowedCalls(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen15F32)
	c := client(t, m, "")
	tools, err := chat.ParseTools([]byte(seedTool))
	if err != nil {
		t.Fatal(err)
	}
	msgs := userMessages(t, `[{"role": "user", "content": "What is in pom.xml?"}]`)
	for _, mode := range []grammar.ChoiceMode{grammar.ChoiceAuto, grammar.ChoiceNone} {
		resp, err := c.Complete(context.Background(), local.Request{Messages: msgs, Tools: tools,
			ToolChoice: grammar.Choice{Mode: mode}, MaxTokens: 8})
		if err != nil {
			t.Fatal(err)
		}
		if resp.FinishReason != "length" || len(resp.Message.ToolCalls) != 0 || len(resp.Violations) != 0 {
			t.Errorf("tool_choice %v: finish %s, %d calls, violations %v; want length, none, none",
				mode, resp.FinishReason, len(resp.Message.ToolCalls), resp.Violations)
		}
	}
	bad, err := chat.ParseTools([]byte(`[{"type": "function", "function": {"name": "broken",
		"parameters": {"type": "object", "properties": {"n": {"type": "string", "pattern": "("}}}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []grammar.ChoiceMode{grammar.ChoiceAuto, grammar.ChoiceNone} {
		resp, err := c.Complete(context.Background(), local.Request{Messages: msgs, Tools: bad,
			ToolChoice: grammar.Choice{Mode: mode}, MaxTokens: 8})
		if err == nil {
			t.Errorf("tool_choice %v with a schema that does not compile = %+v, want an error", mode, resp.Violations)
		}
	}
}

// TestZeroSampling completes twice with a zero Sampling config: it means
// llama.cpp's defaults, with a random seed. It used to be dist alone with
// seed 0, so every call wrote the same text.
func TestZeroSampling(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen15F32)
	c := client(t, m, "")
	msgs := userMessages(t, `[{"role": "user", "content": "Say something."}]`)
	var texts []string
	for range 2 {
		resp, err := c.Complete(context.Background(), local.Request{Messages: msgs, MaxTokens: 24})
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, resp.Message.Content)
	}
	if texts[0] == texts[1] {
		t.Errorf("two completions with the default (random) seed wrote the same %q", texts[0])
	}
}

// TestCompleteKeepsPartial cancels a completion while it streams: the
// response still holds the parsed text, with the error.
func TestCompleteKeepsPartial(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen15F32)
	c := client(t, m, "")
	msgs := userMessages(t, `[{"role": "user", "content": "Say something long."}]`)
	ctx, cancel := context.WithCancel(context.Background())
	var streamed strings.Builder
	resp, err := c.Complete(ctx, local.Request{Messages: msgs, MaxTokens: 400, OnDelta: func(d callformat.Delta) {
		streamed.WriteString(d.Content)
		if streamed.Len() > 30 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) || resp == nil {
		t.Fatalf("Complete = %v, %v; want the partial response and context.Canceled", resp, err)
	}
	if !strings.HasPrefix(resp.Message.Content, strings.TrimSpace(streamed.String())[:20]) || resp.Usage.CompletionTokens == 0 {
		t.Errorf("partial response %q (%d tokens); streamed %q", resp.Message.Content, resp.Usage.CompletionTokens, streamed.String())
	}
}
