package engine_test

import (
	"context"
	"math"
	"sort"
	"testing"

	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
	"github.com/loopagent/loop/sampler"
)

// chiSquareCritical is the chi-square value that df degrees of freedom
// exceed with probability 0.001 (Wilson-Hilferty).
func chiSquareCritical(df int) float64 {
	const z = 3.0902 // the 0.999 quantile of the standard normal
	k := float64(df)
	return k * math.Pow(1-2/(9*k)+z*math.Sqrt(2/(9*k)), 3)
}

// chiSquare compares observed counts with expected probabilities over n
// draws, pooling the categories expected fewer than 5 times into one.
func chiSquare(obs map[llama.Token]int, want []sampler.Candidate, n int) (chi float64, df int) {
	sort.Slice(want, func(i, j int) bool { return want[i].P > want[j].P })
	var restExp, restObs float64
	cats := 0
	for _, c := range want {
		e := c.P * float64(n)
		o := float64(obs[c.ID])
		if e < 5 {
			restExp, restObs = restExp+e, restObs+o
			continue
		}
		chi += (o - e) * (o - e) / e
		cats++
	}
	if restExp > 0 {
		chi += (restObs - restExp) * (restObs - restExp) / restExp
		cats++
	}
	return chi, cats - 1
}

// maskedDistribution is the distribution of "grammar mask, then
// llama-server's default chain" over the last logits of c, with g in its
// current state, computed in Go; it returns the chain's settings, the
// distribution, how many tokens g allows and the vocabulary's size.
func maskedDistribution(t *testing.T, c *llama.Context, g *llama.Sampler) (sampler.Config, []sampler.Candidate, int, int) {
	t.Helper()
	logits, err := c.Logits(-1)
	if err != nil {
		t.Fatal(err)
	}
	masked := make([]float32, len(logits))
	allowed := 0
	for i, l := range logits {
		masked[i] = float32(math.Inf(-1))
		if g.Allows(llama.Token(i)) {
			masked[i] = l
			allowed++
		}
	}
	cfg, err := sampler.Resolve(nil, sampler.Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, sampler.Distribution(cfg, masked, nil), allowed, len(logits)
}

// TestGrammarSamplingExact draws first tokens under the grammar
// root ::= [a-z]+ with llama-server's default chain and compares them with
// the distribution of "grammar mask, then the chain" computed in Go from
// the same logits: 4,000 exact draws must fit it, and 1,500 rejection-first
// draws must not. Rejection-first samples from the chain's truncation of
// the unconstrained candidates, which overweights the allowed tokens among
// them (243 draws of one token against 136 grammar-first in the review).
// (Grammar-first, the definition, fits too, but masks the whole vocabulary
// on every draw: 64 s for 4,000 here.)
func TestGrammarSamplingExact(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, 512)
	slot, _ := llama.NewSlot(c, 0)
	prompt, _ := m.Tokenize("<|im_start|>user\nName a fruit in lower case.<|im_end|>\n<|im_start|>assistant\n", false, true)
	if _, err := slot.Prefill(context.Background(), prompt); err != nil {
		t.Fatal(err)
	}
	const gbnf = `root ::= [a-z]+`
	g, err := engine.CompileGrammar(m, gbnf)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	cfg, want, allowed, vocab := maskedDistribution(t, c, g)
	for _, tt := range []struct {
		mode llama.GrammarMode
		name string
		n    int
		fits bool
	}{{llama.GrammarExact, "exact", 4000, true}, {llama.RejectionFirst, "rejection-first", 1500, false}} {
		t.Run(tt.name, func(t *testing.T) {
			cfg.Seed = 11
			ch, err := engine.Chain(c, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer ch.Close()
			obs := map[llama.Token]int{}
			checks := 0
			n := tt.n
			for range n {
				g.Reset()
				tok, step, err := ch.SampleGrammar(c, -1, g, tt.mode)
				if err != nil {
					t.Fatal(err)
				}
				obs[tok]++
				checks += step.Checked
			}
			chi, df := chiSquare(obs, want, n)
			crit := chiSquareCritical(df)
			t.Logf("%s: chi-square %.1f on %d df (critical %.1f at p = 0.001); %d of %d tokens allowed; %.1f candidates checked per draw",
				tt.name, chi, df, crit, allowed, vocab, float64(checks)/float64(n))
			if fits := chi < crit; fits != tt.fits {
				t.Errorf("%s: chi-square %.1f, critical %.1f: fits the masked distribution %v, want %v", tt.name, chi, crit, fits, tt.fits)
			}
		})
	}
}

// TestGrammarSamplingNarrow: under root ::= [xq]+ fewer tokens are allowed
// than the default chain's top-k keeps, so the exact mode's first draw
// checks candidates one by one in vain and masks them all, and the draw
// after it masks at once, with no checks. The second draws (from the
// state after a first token, where an end is allowed too) must still fit
// the distribution of "grammar mask, then the chain".
func TestGrammarSamplingNarrow(t *testing.T) {
	m := load(t, testmodels.TrainQwen25F32)
	c := newContext(t, m, 512)
	slot, _ := llama.NewSlot(c, 0)
	prompt, _ := m.Tokenize("<|im_start|>user\nWrite x and q.<|im_end|>\n<|im_start|>assistant\n", false, true)
	if _, err := slot.Prefill(context.Background(), prompt); err != nil {
		t.Fatal(err)
	}
	g, err := engine.CompileGrammar(m, `root ::= [xq]+`)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	x, err := m.Tokenize("x", false, false)
	if err != nil || len(x) != 1 {
		t.Fatalf("tokenize x: %v %v", x, err)
	}
	if err := g.Accept(x[0]); err != nil {
		t.Fatal(err)
	}
	cfg, want, allowed, vocab := maskedDistribution(t, c, g)
	if allowed == 0 || allowed >= cfg.TopK {
		t.Fatalf("%d tokens allowed after x; the test needs 1 to %d", allowed, cfg.TopK-1)
	}
	cfg.Seed = 12
	ch, err := engine.Chain(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	const n = 3000
	obs := map[llama.Token]int{}
	for i := range n {
		g.Reset()
		if _, step, err := ch.SampleGrammar(c, -1, g, llama.GrammarExact); err != nil || step.Checked == 0 {
			t.Fatalf("draw %d, first token: %d checks, %v; want one-by-one checks after a reset", i, step.Checked, err)
		}
		tok, step, err := ch.SampleGrammar(c, -1, g, llama.GrammarExact)
		if err != nil || step.Checked != 0 {
			t.Fatalf("draw %d, second token: %d checks, %v; want a mask at once", i, step.Checked, err)
		}
		obs[tok]++
	}
	chi, df := chiSquare(obs, want, n)
	crit := chiSquareCritical(df)
	t.Logf("chi-square %.1f on %d df (critical %.1f at p = 0.001); %d of %d tokens allowed", chi, df, crit, allowed, vocab)
	if chi >= crit {
		t.Errorf("chi-square %.1f, critical %.1f: the second draws do not fit the masked distribution", chi, crit)
	}
}
