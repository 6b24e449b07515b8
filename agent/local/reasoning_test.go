package local_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/sampler"
)

// TestReasoningSwitch: --reasoning maps to each template's own switch,
// and the prompt changes as the template means it to.
func TestReasoningSwitch(t *testing.T) {
	msgs := []chat.Message{{Role: "user", Content: "Hi"}}
	for _, tt := range []struct {
		template, variable string
		// the end of the prompt by default, on and off ("" = not checked)
		def, on, off string
	}{
		{"Qwen-Qwen3", "enable_thinking", "<|im_start|>assistant\n", "<|im_start|>assistant\n", "<think>\n\n</think>\n\n"},
		// off by its own default; loop turns it on as llama-server does
		{"deepseek-ai-DeepSeek-V3.1", "thinking", "<think>", "<think>", "</think>"},
		{"openai-gpt-oss-120b", "reasoning_effort", "", "", ""},
		{"ibm-granite-granite-3.3-2B-Instruct", "thinking", "", "", ""},
		{"Qwen-Qwen2.5-7B-Instruct", "", "", "", ""},
		{"meta-llama-Llama-3.1-8B-Instruct", "", "", "", ""},
	} {
		t.Run(tt.template, func(t *testing.T) {
			tmpl, err := chat.NewTemplate(testmodels.ChatTemplate(t, tt.template), "<s>", "</s>")
			if err != nil {
				t.Fatal(err)
			}
			if got := tmpl.ReasoningSwitch().Variable; got != tt.variable {
				t.Fatalf("switch %q, want %q", got, tt.variable)
			}
			render := func(r model.Reasoning) string {
				p, err := local.Prompt(tmpl, "hermes", local.Request{Messages: msgs, Reasoning: r})
				if err != nil {
					t.Fatal(err)
				}
				return p.Text
			}
			for _, c := range []struct {
				r    model.Reasoning
				want string
			}{{model.ReasoningDefault, tt.def}, {model.ReasoningOn, tt.on}, {model.ReasoningOff, tt.off}} {
				if got := render(c.r); c.want != "" && !strings.HasSuffix(got, c.want) {
					t.Errorf("reasoning %d: the prompt ends %q, want %q", c.r, tail(got, 40), c.want)
				}
			}
			if tt.variable == "reasoning_effort" {
				if on, off := render(model.ReasoningOn), render(model.ReasoningOff); !strings.Contains(on, "Reasoning: medium") || !strings.Contains(off, "Reasoning: low") {
					t.Errorf("gpt-oss: on %q, off %q; want medium and low", tail(on, 200), tail(off, 200))
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func tail(s string, n int) string { return s[max(len(s)-n, 0):] }

// TestReasoningBudget: a reply that stays in its reasoning is closed by
// the client once the budget is spent, and the model goes on with its
// answer or, under a required tool_choice, its call.
func TestReasoningBudget(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen3F16)
	c := client(t, m, "")
	tools, err := chat.ParseTools([]byte(seedTool))
	if err != nil {
		t.Fatal(err)
	}
	// The prefill opens the reasoning; a random model never closes it.
	msgs := userMessages(t, `[{"role": "user", "content": "What is in pom.xml?"}, {"role": "assistant", "content": "<think>\n"}]`)
	const budget, limit = 8, 60
	greedy := model.Sampling{User: sampler.Overrides{Greedy: ptr(true)}}
	var free string // the reasoning without a budget
	for _, tt := range []struct {
		name   string
		tools  []chat.Tool
		choice grammar.ChoiceMode
		budget int
	}{
		{"no budget", nil, grammar.ChoiceAuto, 0},
		{"answer", nil, grammar.ChoiceAuto, budget},
		{"required call", tools, grammar.ChoiceRequired, budget},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.Complete(context.Background(), local.Request{Messages: msgs, Tools: tt.tools,
				ToolChoice: grammar.Choice{Mode: tt.choice}, MaxTokens: limit, ReasoningBudget: tt.budget, IDSeed: 1, Sampling: greedy})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Usage.CompletionTokens > limit {
				t.Errorf("%d tokens, over the limit %d", resp.Usage.CompletionTokens, limit)
			}
			n := strings.Count(resp.Text, "</think>")
			if tt.budget == 0 {
				if n != 0 || resp.Message.Content != "" {
					t.Fatalf("without a budget the reply should stay reasoning: %q", resp.Text)
				}
				free = resp.Text
				return
			}
			if n != 1 {
				t.Fatalf("the reply closes its reasoning %d times, want once: %q", n, resp.Text)
			}
			reasoning := resp.Text[:strings.Index(resp.Text, "</think>")]
			// Greedy and without a grammar: the capped reasoning is where
			// the free one was after the budget.
			if cut := strings.TrimSuffix(reasoning, "\n"); tt.tools == nil && (!strings.HasPrefix(free, cut) || len(cut) >= len(free)) {
				t.Errorf("capped reasoning %q is not a prefix of the free one %q", reasoning, free)
			}
			if resp.Message.ReasoningContent == "" {
				t.Errorf("no reasoning parsed from %q", resp.Text)
			}
			if tt.choice == grammar.ChoiceRequired && len(resp.Message.ToolCalls) == 0 && resp.FinishReason != "length" {
				t.Errorf("required: no call after the reasoning: %q", resp.Text)
			}
			if tt.choice == grammar.ChoiceAuto && strings.TrimSpace(resp.Message.Content) == "" {
				t.Errorf("no answer after the reasoning: %q", resp.Text)
			}
		})
	}
}
