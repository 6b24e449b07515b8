package llama_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

func benchContext(b *testing.B, n int) (*llama.Model, *llama.Context) {
	m := load(b, testmodels.BenchQwen2Q8)
	t := testmodels.BenchThreads()
	// Flash attention off, as llama-bench defaults: on the CPU it is slower.
	c := newContext(b, m, llama.ContextParams{ContextSize: n, Threads: t, BatchThreads: t, FlashAttention: "off"})
	return m, c
}

func randomTokens(m *llama.Model, n int) []llama.Token {
	rng := rand.New(rand.NewPCG(1, 2))
	toks := make([]llama.Token, n)
	for i := range toks {
		toks[i] = llama.Token(rng.IntN(m.VocabSize()))
	}
	return toks
}

// BenchmarkPrefill is llama-bench's pp512 on the bench model: 512 random
// tokens decoded in one n_batch chunk into an empty cache.
func BenchmarkPrefill(b *testing.B) {
	m, c := benchContext(b, 640)
	toks := randomTokens(m, 512)
	ctx := context.Background()
	run := func() {
		c.ClearMemory(false)
		if _, err := c.DecodeTokens(ctx, 0, 0, toks, true); err != nil {
			b.Fatal(err)
		}
	}
	run() // warm-up, as llama-bench does
	for b.Loop() {
		run()
	}
	b.ReportMetric(float64(len(toks)*b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkDecode is llama-bench's tg128: 128 tokens decoded one at a time.
func BenchmarkDecode(b *testing.B) {
	m, c := benchContext(b, 640)
	toks := randomTokens(m, 128)
	ctx := context.Background()
	run := func() {
		c.ClearMemory(false)
		for i, t := range toks {
			if _, err := c.DecodeTokens(ctx, 0, i, []llama.Token{t}, true); err != nil {
				b.Fatal(err)
			}
		}
	}
	run()
	for b.Loop() {
		run()
	}
	b.ReportMetric(float64(len(toks)*b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkPrefillReuse measures a warm turn: a slot holding 1024 tokens
// receives a prompt that extends them by 64, as an agent's next step does.
func BenchmarkPrefillReuse(b *testing.B) {
	m, c := benchContext(b, 2048)
	slot, _ := llama.NewSlot(c, 0)
	all := randomTokens(m, 1024+64)
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		if _, err := slot.Prefill(ctx, all[:1024]); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err := slot.Prefill(ctx, all)
		if err != nil || st.CacheN != 1024 {
			b.Fatalf("warm prefill: %+v, %v", st, err)
		}
	}
}
