package engine_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
	"github.com/loopagent/loop/sampler"
)

// TestDistributionMatchesLlama checks that the pure-Go probabilities of
// sampler.Distribution equal those llama.cpp's chain computes on the same
// logits, within 1e-5: seed 000 Example 6's logits under its settings, and
// random logits under the default chain and the presets.
func TestDistributionMatchesLlama(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, 512)
	seed := []float32{4.0, 2.5, 1.5}
	for range 20 {
		seed = append(seed, -0.5)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]float32, 500)
	for i := range random {
		random[i] = float32(rng.NormFloat64() * 3)
	}
	cfg := func(o sampler.Overrides) sampler.Config {
		c, err := sampler.Resolve(nil, o)
		if err != nil {
			t.Fatal(err)
		}
		c.Seed = 1
		return c
	}
	preset := func(name string) sampler.Overrides {
		o, err := sampler.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	tests := []struct {
		name   string
		logits []float32
		cfg    sampler.Config
	}{
		{"seed temp 0.6 min_p 0.05", seed, cfg(sampler.Overrides{Temperature: sampler.Ptr[float32](0.6), TopK: sampler.Ptr(0), TopP: sampler.Ptr[float32](1)})},
		{"seed temp 1.0 min_p 0", seed, cfg(sampler.Overrides{Temperature: sampler.Ptr[float32](1), MinP: sampler.Ptr[float32](0), TopK: sampler.Ptr(0), TopP: sampler.Ptr[float32](1)})},
		{"seed defaults", seed, cfg(sampler.Overrides{})},
		{"random defaults", random, cfg(sampler.Overrides{})},
		{"random tool-call", random, cfg(preset(sampler.PresetToolCall))},
		{"random typical", random, cfg(sampler.Overrides{TypicalP: sampler.Ptr[float32](0.9), TopK: sampler.Ptr(0)})},
		{"random top-n-sigma", random, cfg(sampler.Overrides{TopNSigma: sampler.Ptr[float32](1.5), TopK: sampler.Ptr(0)})},
		{"random dynatemp", random, cfg(sampler.Overrides{DynatempRange: sampler.Ptr[float32](0.5), TopK: sampler.Ptr(100)})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := sampler.Distribution(tt.cfg, tt.logits, nil)
			ch, err := engine.Chain(c, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer ch.Close()
			cands := make([]llama.TokenData, len(tt.logits))
			for i, l := range tt.logits {
				cands[i] = llama.TokenData{ID: int32(i), Logit: l}
			}
			_, n, err := ch.Apply(cands)
			if err != nil {
				t.Fatal(err)
			}
			got := map[int32]float64{}
			for _, c := range cands[:n] {
				got[c.ID] = float64(c.P)
			}
			checked := 0
			for _, w := range want {
				if w.P == 0 && got[w.ID] == 0 {
					continue
				}
				checked++
				if d := math.Abs(got[w.ID] - w.P); d > 1e-5 {
					t.Errorf("token %d: llama.cpp P %.7f, Go P %.7f (diff %.2g)", w.ID, got[w.ID], w.P, d)
				}
			}
			if checked == 0 {
				t.Fatalf("no probabilities compared")
			}
		})
	}
}
