// Package kld compares the next-token distributions of two models that
// share a vocabulary, as llama-perplexity's --kl-divergence does: per
// scored position the KL divergence KL(P_base || P_other) =
// Σ p_base (log p_base − log p_other), whether both put the same token on
// top, and each model's log-likelihood of the real next token, from which
// the perplexities follow.
package kld

import (
	"fmt"
	"math"
	"slices"
)

// Stats accumulates positions. Its zero value is ready.
type Stats struct {
	klds             []float64
	same             int
	nllBase, nllOthr float64
}

// Add scores one position: the two models' logits and the token that
// really came next.
func (s *Stats) Add(base, other []float32, next int) error {
	if len(base) != len(other) {
		return fmt.Errorf("kld: %d logits against %d", len(base), len(other))
	}
	if next < 0 || next >= len(base) {
		return fmt.Errorf("kld: next token %d outside a vocabulary of %d", next, len(base))
	}
	lp, lq := logSoftmax(base), logSoftmax(other)
	kl := 0.0
	for i := range lp {
		if p := math.Exp(lp[i]); p > 0 {
			kl += p * (lp[i] - lq[i])
		}
	}
	s.klds = append(s.klds, max(kl, 0))
	if argmax(base) == argmax(other) {
		s.same++
	}
	s.nllBase -= lp[next]
	s.nllOthr -= lq[next]
	return nil
}

// Report is what llama-perplexity --kl-divergence prints, in short.
type Report struct {
	N                      int     `json:"positions"`
	Mean                   float64 `json:"kld_mean"`
	P90, P95, P99, P999    float64 `json:"-"`
	Max                    float64 `json:"kld_max"`
	SameTop                float64 `json:"same_top"` // share of positions with the same top token
	PerplexityBase, PPLOth float64 `json:"-"`
}

// Report summarizes the positions added so far.
func (s *Stats) Report() Report {
	r := Report{N: len(s.klds)}
	if r.N == 0 {
		return r
	}
	sorted := slices.Clone(s.klds)
	slices.Sort(sorted)
	sum := 0.0
	for _, k := range sorted {
		sum += k
	}
	r.Mean, r.Max = sum/float64(r.N), sorted[r.N-1]
	r.P90, r.P95, r.P99, r.P999 = percentile(sorted, 0.90), percentile(sorted, 0.95), percentile(sorted, 0.99), percentile(sorted, 0.999)
	r.SameTop = float64(s.same) / float64(r.N)
	r.PerplexityBase = math.Exp(s.nllBase / float64(r.N))
	r.PPLOth = math.Exp(s.nllOthr / float64(r.N))
	return r
}

// percentile of sorted values, with linear interpolation between ranks.
func percentile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(pos)
	if lo+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(lo)
	return sorted[lo]*(1-f) + sorted[lo+1]*f
}

// logSoftmax in float64, stable.
func logSoftmax(logits []float32) []float64 {
	m := math.Inf(-1)
	for _, l := range logits {
		m = max(m, float64(l))
	}
	sum := 0.0
	for _, l := range logits {
		sum += math.Exp(float64(l) - m)
	}
	lse := m + math.Log(sum)
	out := make([]float64, len(logits))
	for i, l := range logits {
		out[i] = float64(l) - lse
	}
	return out
}

func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}
