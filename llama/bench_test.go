package llama_test

import (
	"context"
	"fmt"
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

// BenchmarkVerify is the cost of the batch that checks a draft: n tokens
// after a 512-token prompt, decoded at once with logits at every position,
// then removed again. Drafting pays off only where a batch of n costs less
// than the tokens it keeps would cost one at a time (n=1 is plain decoding).
// The sizes on either side of a multiple of four show how ggml multiplies
// repacked CPU weights (Q4_0, Q8_0, Q4_K, IQ4_NL): four rows of the batch
// at a time, and each row left over in a pass of its own over all the
// weights, so that n=5 may cost more than n=8.
func BenchmarkVerify(b *testing.B) {
	m, c := benchContext(b, 640)
	toks := randomTokens(m, 512+17)
	ctx := context.Background()
	if _, err := c.DecodeTokens(ctx, 0, 0, toks[:512], false); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 2, 3, 4, 5, 8, 9, 12, 16, 17} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			batch, err := llama.NewBatch(n, 1)
			if err != nil {
				b.Fatal(err)
			}
			defer batch.Close()
			run := func() {
				batch.Clear()
				for i, t := range toks[512 : 512+n] {
					if err := batch.Add(t, 512+i, []int{0}, true); err != nil {
						b.Fatal(err)
					}
				}
				if err := c.Decode(ctx, batch); err != nil {
					b.Fatal(err)
				}
				if _, err := c.SeqRemove(0, 512, -1); err != nil {
					b.Fatal(err)
				}
			}
			run()
			for b.Loop() {
				run()
			}
			b.ReportMetric(b.Elapsed().Seconds()*1000/float64(b.N), "ms/batch")
		})
	}
}
