package engine_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
	"github.com/loopagent/loop/sampler"
)

// generateWith prefills prompt and generates n tokens with cfg.
func generateWith(t *testing.T, c *llama.Context, cfg sampler.Config, prompt string, n int) *engine.Result {
	t.Helper()
	m := c.Model()
	ch, err := engine.Chain(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	slot, err := llama.NewSlot(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	toks, _ := m.Tokenize(prompt, true, true)
	res, err := engine.Generate(context.Background(), slot, engine.Request{Prompt: toks, Chain: ch, NPredict: n})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// repeats returns the first token that occurs twice in toks, or -1.
func repeats(toks []llama.Token) llama.Token {
	seen := map[llama.Token]bool{}
	for _, t := range toks {
		if seen[t] {
			return t
		}
		seen[t] = true
	}
	return -1
}

// TestGreedyKeepsOrder decodes greedily with a repeat penalty of 1e9: the
// penalties must run before greedy picks. Greedy used to replace the whole
// order, so the random model repeated a token within 24.
func TestGreedyKeepsOrder(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, 512)
	cfg := sampler.Defaults()
	cfg.Greedy, cfg.RepeatPenalty, cfg.PenaltyLastN = true, 1e9, 64
	res := generateWith(t, c, cfg, "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n", 48)
	if tok := repeats(res.Tokens); tok >= 0 {
		t.Errorf("greedy with a repeat penalty of 1e9 repeated token %d: %v", tok, res.Tokens)
	}
	cfg.RepeatPenalty = 1
	res = generateWith(t, c, cfg, "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n", 48)
	if repeats(res.Tokens) < 0 {
		t.Fatalf("without the penalty the random model should repeat itself in 48 greedy tokens (else this test proves nothing): %v", res.Tokens)
	}
}

// TestPenaltyWholeContext sets repeat_last_n -1, "the whole context" on
// llama.cpp's command line: llama.cpp's sampler turns -1 into 0, which
// switched the penalty off; Chain maps it to the context size.
func TestPenaltyWholeContext(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, 512)
	cfg := sampler.Defaults()
	cfg.Greedy, cfg.RepeatPenalty, cfg.PenaltyLastN = true, 1e9, -1
	res := generateWith(t, c, cfg, "<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n", 200)
	if tok := repeats(res.Tokens); tok >= 0 {
		t.Errorf("repeat_last_n -1: token %d repeated within %d tokens", tok, len(res.Tokens))
	}
}

// TestGenerateKeepsPartial cancels a generation after it has streamed some
// text: the result still holds that text and its tokens, with the error.
func TestGenerateKeepsPartial(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, 512)
	ch := defaultChain(t, 5)
	defer ch.Close()
	slot, _ := llama.NewSlot(c, 0)
	toks, _ := m.Tokenize("<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n", true, true)
	ctx, cancel := context.WithCancel(context.Background())
	var streamed strings.Builder
	res, err := engine.Generate(ctx, slot, engine.Request{Prompt: toks, Chain: ch, NPredict: 500, OnText: func(s string) {
		streamed.WriteString(s)
		if streamed.Len() > 40 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Generate = %v, want context.Canceled", err)
	}
	if res == nil || len(res.Tokens) == 0 || res.Text == "" || !strings.HasPrefix(res.Text, streamed.String()) {
		t.Errorf("cancelled result: %d tokens, text %q; streamed %q", len(res.Tokens), res.Text, streamed.String())
	}
}
