package main

import (
	"context"
	"io"

	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/llama"
)

// complete prefills the prompt and generates, streaming the text to out.
// When generation fails or is cancelled, the result holds what was
// generated, with the error.
func (f *completeFlags) complete(ctx context.Context, m *llama.Model, in completeInputs, out io.Writer) (*completion, error) {
	cfg, err := resolveSampling(m, in.sampling)
	if err != nil {
		return nil, err
	}
	toks, err := m.Tokenize(in.prompt, true, true)
	if err != nil {
		return nil, err
	}
	p, err := f.contextParams(m)
	if err != nil {
		return nil, err
	}
	c, err := llama.NewContext(m, p)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ch, err := engine.Chain(c, cfg)
	if err != nil {
		return nil, err
	}
	defer ch.Close()
	req := engine.Request{Prompt: toks, Chain: ch, NPredict: f.predict(), Stop: f.stop, GrammarMode: in.mode, DraftMax: max(f.draftMax, 0),
		OnText: func(s string) { io.WriteString(out, s) }}
	if in.gbnf != "" {
		g, err := engine.CompileGrammar(m, in.gbnf)
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
	return &completion{
		Content: r.Text, StopType: r.StopType, StoppingWord: r.StoppingWord,
		TokensPredicted: len(r.Tokens), TokensEvaluated: len(toks), Seed: ch.Seed(), NCtx: c.Size(),
		Timings: timings{
			CacheN: r.Prefill.CacheN, PromptN: r.Prefill.PromptN, PromptMs: r.Prefill.PromptMs, PromptPerSecond: r.Prefill.PerSecond(),
			PredictedN: len(r.Tokens), PredictedMs: r.PredictMs, PredictedPerSecond: r.PerSecond(),
			GrammarRejections: r.Rejections, GrammarChecks: r.GrammarChecks,
			DraftN: r.Drafted, DraftNAccepted: r.Accepted,
		},
	}, err
}
