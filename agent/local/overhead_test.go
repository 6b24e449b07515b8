package local_test

import (
	"context"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/internal/testmodels"
)

// BenchmarkStepOverhead is the client's own work on an agent step with a
// warm slot: the prompt of seed 000 Example 10's session after four steps
// with the six tools, read only (no reply), so that the model computes
// the generation prompt's token at most. The metrics split it into render,
// tokenize, grammar and validate.
func BenchmarkStepOverhead(b *testing.B) {
	m := loadModel(&testing.T{}, testmodels.TinyQwen15F32)
	c, err := local.New(m, local.Options{ContextSize: 8192, Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	defs, msgs := stepPrompt(b)
	req := local.Request{Messages: msgs, Tools: defs, MaxTokens: -1, ToolChoice: grammar.Choice{Mode: grammar.ChoiceRequired}}
	if _, err := c.Complete(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	var u local.Usage
	b.ResetTimer()
	for range b.N {
		resp, err := c.Complete(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		r := resp.Usage
		u.RenderMs += r.RenderMs
		u.TokenizeMs += r.TokenizeMs
		u.GrammarMs += r.GrammarMs
		u.ValidateMs += r.ValidateMs
		u.PromptMs += r.PromptMs
		u.PromptTokens = r.PromptTokens
	}
	n := float64(b.N)
	b.ReportMetric(u.RenderMs/n, "render-ms")
	b.ReportMetric(u.TokenizeMs/n, "tokenize-ms")
	b.ReportMetric(u.GrammarMs/n, "grammar-ms")
	b.ReportMetric(u.ValidateMs/n, "validate-ms")
	b.ReportMetric(u.PromptMs/n, "prefill-ms")
	b.ReportMetric(float64(u.PromptTokens), "prompt-tokens")
}

// BenchmarkTokenizePrompt is the tokenization of that step's whole prompt,
// the part of a step's overhead that grows with the conversation.
func BenchmarkTokenizePrompt(b *testing.B) {
	m := loadModel(&testing.T{}, testmodels.TinyQwen15F32)
	defs, msgs := stepPrompt(b)
	tmpl, ok := m.ChatTemplate("")
	if !ok {
		b.Fatal("no template")
	}
	t, err := chat.NewTemplate(tmpl, "", "<|endoftext|>")
	if err != nil {
		b.Fatal(err)
	}
	p, err := local.Prompt(t, "hermes", local.Request{Messages: msgs, Tools: defs})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var n int
	for range b.N {
		toks, err := local.Tokenize(m, p.Text)
		if err != nil {
			b.Fatal(err)
		}
		n = len(toks)
	}
	b.ReportMetric(float64(n), "tokens")
}

// stepPrompt is the tools and the messages of seed 000 Example 10's
// session after four steps, the results capped at 1,200 characters.
func stepPrompt(b *testing.B) ([]chat.Tool, []chat.Message) {
	defs, err := chat.ParseTools(tools.Default().Definitions())
	if err != nil {
		b.Fatal(err)
	}
	msgs := []chat.Message{{Role: "system", Content: loop.DefaultSystem}, {Role: "user", Content: "OrderTest.total fails. Fix OrderService.java."}}
	for i, s := range seedSession[:4] {
		s.chars = min(s.chars, 1200)
		call, result := stepMessages(i, s)
		msgs = append(msgs, call, result)
	}
	return defs, msgs
}
