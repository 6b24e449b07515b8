package llama_test

import (
	"context"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

const samplePrompt = "<|im_start|>user\nWhat is in pom.xml? Read it and tell me which Java version the build uses.<|im_end|>\n<|im_start|>assistant\n"

func tokenize(t testing.TB, m *llama.Model, text string) []llama.Token {
	t.Helper()
	toks, err := m.Tokenize(text, true, true)
	if err != nil {
		t.Fatalf("Tokenize: %v", err)
	}
	return toks
}

// generate samples n tokens after the slot's prompt with a temperature
// chain seeded with seed.
func generate(t *testing.T, m *llama.Model, c *llama.Context, slot *llama.Slot, prompt []llama.Token, seed uint32, n int) []llama.Token {
	t.Helper()
	ch := llama.NewChain(false)
	defer ch.Close()
	for _, s := range []*llama.Sampler{llama.NewTopK(40), llama.NewTemp(0.8), llama.NewDist(seed)} {
		if err := ch.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := slot.Prefill(context.Background(), prompt); err != nil {
		t.Fatalf("Prefill: %v", err)
	}
	var out []llama.Token
	for range n {
		tok, err := ch.Sample(c, -1)
		if err != nil {
			t.Fatalf("Sample: %v", err)
		}
		out = append(out, tok)
		if err := slot.Append(context.Background(), tok); err != nil {
			t.Fatalf("Append: %v", err)
		}
	}
	return out
}

func TestDeterminism(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 512})
	slot, err := llama.NewSlot(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	prompt := tokenize(t, m, samplePrompt)
	a := generate(t, m, c, slot, prompt, 42, 24)
	slot.Clear()
	b := generate(t, m, c, slot, prompt, 42, 24)
	if !equalTokens(a, b) {
		t.Errorf("seed 42 twice gave different tokens:\n%v\n%v", a, b)
	}
	slot.Clear()
	d := generate(t, m, c, slot, prompt, 43, 24)
	if equalTokens(a, d) {
		t.Errorf("seeds 42 and 43 gave the same 24 tokens %v; the seed has no effect", a)
	}
}

func equalTokens(a, b []llama.Token) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSlotReuse(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 1024, BatchSize: 64})
	slot, err := llama.NewSlot(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	first := tokenize(t, m, strings.Repeat(samplePrompt, 3))
	more := tokenize(t, m, "<|im_start|>user\nNow run the tests.<|im_end|>\n")
	second := append(append([]llama.Token(nil), first...), more...)

	prefill := func(p []llama.Token) (llama.PrefillStats, int) {
		t.Helper()
		c.ResetPerf()
		st, err := slot.Prefill(ctx, p)
		if err != nil {
			t.Fatalf("Prefill: %v", err)
		}
		if got := c.SeqPosMax(0) + 1; got != len(p) || slot.Len() != len(p) {
			t.Fatalf("after Prefill the cache holds %d tokens and the slot %d, want %d", got, slot.Len(), len(p))
		}
		// llama.cpp reports each count as at least 1 and counts a
		// one-token decode as generation, so after a reset the tokens it
		// computed (one or more) are PromptTokens + EvalTokens - 1.
		pf := c.Perf()
		return st, pf.PromptTokens + pf.EvalTokens - 1
	}
	st, computed := prefill(first)
	if st.CacheN != 0 || st.PromptN != len(first) || computed != len(first) {
		t.Errorf("cold prefill: cache_n %d prompt_n %d (llama.cpp computed %d), want 0, %d", st.CacheN, st.PromptN, computed, len(first))
	}
	st, computed = prefill(second)
	if st.CacheN != len(first) || st.PromptN != len(more) || computed != len(more) {
		t.Errorf("extending prefill: cache_n %d prompt_n %d (llama.cpp computed %d), want %d, %d", st.CacheN, st.PromptN, computed, len(first), len(more))
	}
	warm, _ := c.Logits(-1)

	// The same prompt again computes only the last token, for its logits.
	st, computed = prefill(second)
	if st.CacheN != len(second)-1 || st.PromptN != 1 || computed != 1 {
		t.Errorf("repeated prefill: cache_n %d prompt_n %d (computed %d), want %d, 1", st.CacheN, st.PromptN, computed, len(second)-1)
	}

	// An edit in the middle keeps exactly the common prefix.
	edited := append([]llama.Token(nil), second...)
	k := len(first) / 2
	edited[k] = edited[k] + 1
	st, computed = prefill(edited)
	if st.CacheN != k || st.PromptN != len(edited)-k || computed != len(edited)-k {
		t.Errorf("edited prefill: cache_n %d prompt_n %d (computed %d), want %d, %d", st.CacheN, st.PromptN, computed, k, len(edited)-k)
	}

	// Reused cells give the logits a cold prefill gives.
	slot.Clear()
	prefill(second)
	cold, _ := c.Logits(-1)
	if d := maxDiff(warm, cold); d > 1e-3 {
		t.Errorf("logits after prefix reuse differ from a cold prefill by %g", d)
	}
}

func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = math.Max(d, math.Abs(float64(a[i]-b[i])))
	}
	return d
}

// TestStateRoundTrip saves a sequence, restores it into a cleared cache, and
// checks the next token's logits are identical to those without the round
// trip, through bytes and through a file.
func TestStateRoundTrip(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 512, Sequences: 2})
	ctx := context.Background()
	prompt := tokenize(t, m, samplePrompt)
	next := prompt[3]
	slot, _ := llama.NewSlot(c, 0)
	if _, err := slot.Prefill(ctx, prompt); err != nil {
		t.Fatal(err)
	}
	state, err := c.SeqState(0)
	if err != nil || len(state) == 0 {
		t.Fatalf("SeqState: %d bytes, %v", len(state), err)
	}
	if err := slot.Append(ctx, next); err != nil {
		t.Fatal(err)
	}
	want, _ := c.Logits(-1)

	for _, tc := range []struct {
		name    string
		restore func(seq int) ([]llama.Token, error)
	}{
		{"bytes", func(seq int) ([]llama.Token, error) { return prompt, c.SetSeqState(seq, state) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := c.ClearMemory(true); err != nil {
				t.Fatal(err)
			}
			toks, err := tc.restore(1) // into the other sequence
			if err != nil {
				t.Fatalf("restore: %v", err)
			}
			if !equalTokens(toks, prompt) {
				t.Fatalf("restored tokens %v, want %v", toks, prompt)
			}
			if got := c.SeqPosMax(1); got != len(prompt)-1 {
				t.Fatalf("restored sequence ends at %d, want %d", got, len(prompt)-1)
			}
			if _, err := c.DecodeTokens(ctx, 1, len(prompt), []llama.Token{next}, true); err != nil {
				t.Fatal(err)
			}
			got, _ := c.Logits(-1)
			if d := maxDiff(got, want); d != 0 {
				t.Errorf("next-token logits after restore differ by %g, want identical", d)
			}
		})
	}
}

// TestCancelPrefill cancels a long prefill on the bench model and expects it
// to stop before the end with context.Canceled, the cache and the slot in
// step. (How fast it stops is a timing, logged here, not asserted.)
func TestCancelPrefill(t *testing.T) {
	m := load(t, testmodels.BenchQwen2Q8)
	c := newContext(t, m, llama.ContextParams{ContextSize: 4096, Threads: 2})
	slot, _ := llama.NewSlot(c, 0)
	prompt := make([]llama.Token, 4000)
	for i := range prompt {
		prompt[i] = llama.Token(1000 + i%5000)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var cancelled time.Time
	go func() {
		time.Sleep(300 * time.Millisecond)
		cancelled = time.Now()
		cancel()
	}()
	st, err := slot.Prefill(ctx, prompt)
	stopped := time.Since(cancelled)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Prefill = %+v, %v; want context.Canceled", st, err)
	}
	if got := c.SeqPosMax(0) + 1; got != slot.Len() || slot.Len() >= len(prompt) {
		t.Errorf("after the abort the cache holds %d tokens and the slot says %d (of %d)", got, slot.Len(), len(prompt))
	}
	t.Logf("stopped %v after cancel; %d of %d tokens were cached", stopped, slot.Len(), len(prompt))
}

func TestMain(m *testing.M) {
	os.Exit(m.Run())
}
