package main

import (
	"context"
	"io"

	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/llama"
	"github.com/loopagent/loop/sampler"
)

// complete prefills the prompt and generates, streaming the text to out.
func (f *completeFlags) complete(ctx context.Context, m *llama.Model, prompt, gbnf string, o sampler.Overrides, out io.Writer) (*completion, error) {
	cfg, err := resolveSampling(m, o)
	if err != nil {
		return nil, err
	}
	toks, err := m.Tokenize(prompt, true, true)
	if err != nil {
		return nil, err
	}
	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: f.ctxSize, Threads: f.threads})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ch, err := engine.Chain(c, cfg)
	if err != nil {
		return nil, err
	}
	defer ch.Close()
	req := engine.Request{Prompt: toks, Chain: ch, NPredict: f.nPredict, Stop: f.stop,
		OnText: func(s string) { io.WriteString(out, s) }}
	switch f.grammarMode {
	case "exact":
	case "rejection-first":
		req.GrammarMode = llama.RejectionFirst
	case "grammar-first":
		req.GrammarMode = llama.GrammarFirst
	default:
		return nil, usagef("--grammar-mode %q: want exact, grammar-first or rejection-first", f.grammarMode)
	}
	if gbnf != "" {
		g, err := engine.CompileGrammar(m, gbnf)
		if err != nil {
			return nil, err
		}
		defer g.Close()
		req.Grammar = g
	}
	slot, err := llama.NewSlot(c, 0)
	if err != nil {
		return nil, err
	}
	r, err := engine.Generate(ctx, slot, req)
	if err != nil {
		return nil, err
	}
	return &completion{
		Content: r.Text, StopType: r.StopType, StoppingWord: r.StoppingWord,
		TokensPredicted: len(r.Tokens), TokensEvaluated: len(toks), Seed: ch.Seed(),
		Timings: timings{
			CacheN: r.Prefill.CacheN, PromptN: r.Prefill.PromptN, PromptMs: r.Prefill.PromptMs, PromptPerSecond: r.Prefill.PerSecond(),
			PredictedN: len(r.Tokens), PredictedMs: r.PredictMs, PredictedPerSecond: r.PerSecond(), GrammarRejections: r.Rejections,
		},
	}, nil
}
