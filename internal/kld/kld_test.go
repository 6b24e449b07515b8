package kld

import (
	"math"
	"testing"
)

// TestByHand checks one position against the definition worked by hand:
// p = softmax(0, ln 3) = (1/4, 3/4), q = softmax(0, 0) = (1/2, 1/2);
// KL = 1/4 ln(1/2) + 3/4 ln(3/2) = 0.1308, the next token 1 has
// probability 3/4 under p (perplexity 4/3) and 1/2 under q (2).
func TestByHand(t *testing.T) {
	var s Stats
	if err := s.Add([]float32{0, float32(math.Log(3))}, []float32{0, 0}, 1); err != nil {
		t.Fatal(err)
	}
	r := s.Report()
	want := 0.25*math.Log(0.5) + 0.75*math.Log(1.5)
	if math.Abs(r.Mean-want) > 1e-6 || r.Max != r.Mean || r.N != 1 {
		t.Errorf("KLD %v (max %v), want %v", r.Mean, r.Max, want)
	}
	if math.Abs(r.PerplexityBase-4.0/3) > 1e-6 || math.Abs(r.PPLOth-2) > 1e-6 {
		t.Errorf("perplexities %v and %v, want 4/3 and 2", r.PerplexityBase, r.PPLOth)
	}
	if r.SameTop != 0 { // argmax of q is its first token, a tie broken low
		t.Errorf("same top %v, want 0", r.SameTop)
	}
}

func TestSelfIsZero(t *testing.T) {
	var s Stats
	l := []float32{1.5, -2, 0.25, 7}
	for i := range 10 {
		if err := s.Add(l, l, i%4); err != nil {
			t.Fatal(err)
		}
	}
	if r := s.Report(); r.Mean != 0 || r.Max != 0 || r.SameTop != 1 || r.PerplexityBase != r.PPLOth {
		t.Errorf("a model against itself: %+v", r)
	}
	if err := s.Add(l, l[:3], 0); err == nil {
		t.Error("logits of different sizes were accepted")
	}
	if err := s.Add(l, l, 4); err == nil {
		t.Error("a next token outside the vocabulary was accepted")
	}
}

func TestPercentile(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if p := percentile(x, 0.9); p != 9 {
		t.Errorf("p90 = %v, want 9", p)
	}
	if p := percentile(x, 0.95); p != 9.5 {
		t.Errorf("p95 = %v, want 9.5", p)
	}
}
