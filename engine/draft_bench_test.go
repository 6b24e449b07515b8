package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
	"github.com/loopagent/loop/sampler"
)

// editPrompt is a chat turn that reads a 40-line file and asks for it
// rewritten: the reply of a model that does it copies most of the file.
func editPrompt() string {
	var file strings.Builder
	for i := range 40 {
		fmt.Fprintf(&file, "\tif err := step%d(ctx, cfg); err != nil { return fmt.Errorf(\"step %d: %%w\", err) }\n", i, i)
	}
	return "<|im_start|>user\nHere is run.go:\n" + file.String() +
		"Rewrite these 40 lines with ctx renamed to c, and nothing else.<|im_end|>\n<|im_start|>assistant\n"
}

// BenchmarkDraft measures decoding 96 tokens on the bench model with and
// without drafting (up to 16 tokens ahead, as the agent's binary drafts
// inside tool calls by default), a plain run and a drafted one in
// turn, each first in turn, so that both see the same load:
//
//   - edit/teacher: greedy, the drafts are the greedy continuation itself,
//     taken from a plain run, as if the model copied what prompt lookup
//     finds (a random model copies nothing);
//   - edit/lookup: greedy, prompt lookup (a random model repeats itself,
//     which lookup drafts too);
//   - nocopy/lookup: sampled at temperature 0.8, a reply that copies
//     nothing, where prompt lookup must cost next to nothing.
//
// It reports tokens per second with and without drafting, the speed-up,
// tokens per decode, and the draft tokens per run and the share accepted.
func BenchmarkDraft(b *testing.B) {
	m := load(b, testmodels.BenchQwen2Q8)
	th := testmodels.BenchThreads()
	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 2048, Threads: th, BatchThreads: th, FlashAttention: "off"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	slot, err := llama.NewSlot(c, 0)
	if err != nil {
		b.Fatal(err)
	}
	greedy := sampler.Defaults()
	greedy.Greedy = true
	sampled := sampler.Defaults()
	sampled.Seed = 42
	const n = 96
	const draftMax = 16
	gen := func(b *testing.B, cfg sampler.Config, prompt []llama.Token, draftMax int, draft func([]llama.Token, int) []llama.Token) *engine.Result {
		ch, err := engine.Chain(c, cfg)
		if err != nil {
			b.Fatal(err)
		}
		defer ch.Close()
		res, err := engine.Generate(context.Background(), slot, engine.Request{Prompt: prompt, Chain: ch, NPredict: n, DraftMax: draftMax, Draft: draft})
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	edit, _ := m.Tokenize(editPrompt(), false, true)
	story, _ := m.Tokenize("<|im_start|>user\nWrite a short story.<|im_end|>\n<|im_start|>assistant\n", false, true)
	want := gen(b, greedy, edit, 0, nil).Tokens
	teacher := func(toks []llama.Token, max int) []llama.Token {
		k := len(toks) - len(edit)
		return want[min(k, len(want)):min(k+max, len(want))]
	}
	run := func(b *testing.B, cfg sampler.Config, prompt []llama.Token, draft func([]llama.Token, int) []llama.Token) {
		var tokens, decodes, drafted, accepted int
		var plainMs, ms float64
		for i := 0; b.Loop(); i++ {
			var plain, res *engine.Result
			if i%2 == 0 { // each goes first in turn
				plain, res = gen(b, cfg, prompt, 0, nil), gen(b, cfg, prompt, draftMax, draft)
			} else {
				res, plain = gen(b, cfg, prompt, draftMax, draft), gen(b, cfg, prompt, 0, nil)
			}
			if len(res.Tokens) != len(plain.Tokens) {
				b.Fatalf("%d tokens drafted, %d plain", len(res.Tokens), len(plain.Tokens))
			}
			tokens, plainMs, ms = tokens+len(res.Tokens), plainMs+plain.PredictMs, ms+res.PredictMs
			decodes, drafted, accepted = decodes+res.Decodes, drafted+res.Drafted, accepted+res.Accepted
		}
		b.ReportMetric(float64(tokens)/plainMs*1000, "plain-tokens/s")
		b.ReportMetric(float64(tokens)/ms*1000, "tokens/s")
		b.ReportMetric(plainMs/ms, "speedup")
		b.ReportMetric(float64(tokens)/float64(max(decodes, 1)), "tokens/decode")
		b.ReportMetric(100*float64(accepted)/float64(max(drafted, 1)), "%accepted")
		b.ReportMetric(float64(drafted)/float64(b.N), "drafted/op")
	}
	b.Run("edit/teacher", func(b *testing.B) { run(b, greedy, edit, teacher) })
	b.Run("edit/lookup", func(b *testing.B) { run(b, greedy, edit, nil) })
	b.Run("nocopy/lookup", func(b *testing.B) { run(b, sampled, story, nil) })
}
