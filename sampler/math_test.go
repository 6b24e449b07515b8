package sampler

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var (
	negInf = math.Inf(-1)
	// approx compares floats within 1e-9, for results computed by hand.
	approx = cmpopts.EquateApprox(0, 1e-9)
)

// cands builds candidates with ids 0, 1, ... from logits.
func cands(logits ...float64) []Candidate {
	c := make([]Candidate, len(logits))
	for i, l := range logits {
		c[i] = Candidate{ID: int32(i), Logit: l}
	}
	return c
}

// ids returns the ids of c, in order.
func ids(c []Candidate) []int32 {
	out := make([]int32, len(c))
	for i, x := range c {
		out[i] = x.ID
	}
	return out
}

// logits returns the logits of c, in order.
func logits(c []Candidate) []float64 {
	out := make([]float64, len(c))
	for i, x := range c {
		out[i] = x.Logit
	}
	return out
}

// probs returns the probabilities of c, in order.
func probs(c []Candidate) []float64 {
	out := make([]float64, len(c))
	for i, x := range c {
		out[i] = x.P
	}
	return out
}

func TestSoftmax(t *testing.T) {
	tests := []struct {
		name   string
		logits []float64
		want   []float64
	}{
		{name: "one to three", logits: []float64{0, math.Log(3)}, want: []float64{0.25, 0.75}},
		{name: "order kept", logits: []float64{math.Log(3), 0}, want: []float64{0.75, 0.25}},
		{name: "shift invariant", logits: []float64{1000, 1000 + math.Log(3)}, want: []float64{0.25, 0.75}},
		{name: "-inf is zero", logits: []float64{negInf, 2, 2}, want: []float64{0, 0.5, 0.5}},
		{name: "all -inf", logits: []float64{negInf, negInf}, want: []float64{0, 0}},
		{name: "empty", logits: []float64{}, want: []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := probs(Softmax(cands(tt.logits...)))
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("Softmax(%v) mismatch (-want +got):\n%s", tt.logits, diff)
			}
		})
	}
}

func TestTopK(t *testing.T) {
	tests := []struct {
		name    string
		logits  []float64
		k       int
		minKeep int
		want    []int32
	}{
		{name: "keeps k, sorted", logits: []float64{1, 3, 2, 5, 4}, k: 2, want: []int32{3, 4}},
		{name: "min_keep raises k", logits: []float64{1, 3, 2, 5, 4}, k: 2, minKeep: 3, want: []int32{3, 4, 1}},
		{name: "k above size keeps all, sorted", logits: []float64{1, 3, 2}, k: 10, want: []int32{1, 2, 0}},
		{name: "k 0 keeps all, unchanged", logits: []float64{1, 3, 2}, k: 0, want: []int32{0, 1, 2}},
		{name: "k -1 keeps all", logits: []float64{1, 3, 2}, k: -1, minKeep: 1, want: []int32{0, 1, 2}},
		{name: "ties by id", logits: []float64{2, 5, 5, 5}, k: 2, want: []int32{1, 2}},
		{name: "k 1", logits: []float64{0.5, -1, 0.7}, k: 1, want: []int32{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(TopK(cands(tt.logits...), tt.k, tt.minKeep))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("TopK(%v, %d, %d) mismatch (-want +got):\n%s", tt.logits, tt.k, tt.minKeep, diff)
			}
		})
	}
}

func TestTopP(t *testing.T) {
	// Probabilities 0.5, 0.2, 0.3 for ids 0, 1, 2: sorted, 0.5 0.3 0.2.
	l := []float64{math.Log(0.5), math.Log(0.2), math.Log(0.3)}
	tests := []struct {
		name    string
		p       float64
		minKeep int
		want    []int32
	}{
		{name: "first alone reaches p", p: 0.5, want: []int32{0}},
		{name: "just above the first", p: 0.51, want: []int32{0, 2}},
		{name: "two reach p", p: 0.79, want: []int32{0, 2}},
		{name: "needs all three", p: 0.81, want: []int32{0, 2, 1}},
		{name: "min_keep", p: 0.5, minKeep: 2, want: []int32{0, 2}},
		{name: "min_keep above size", p: 0.5, minKeep: 5, want: []int32{0, 2, 1}},
		{name: "p 0 keeps one", p: 0, want: []int32{0}},
		{name: "p 1 is off: unchanged order", p: 1, want: []int32{0, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TopP(cands(l...), tt.p, tt.minKeep)
			if diff := cmp.Diff(tt.want, ids(got)); diff != "" {
				t.Errorf("TopP(%v, %v, %d) mismatch (-want +got):\n%s", l, tt.p, tt.minKeep, diff)
			}
		})
	}
	// The cumulative sum runs over the softmax of all candidates, before
	// the cut, and P keeps those values.
	got := TopP(cands(l...), 0.79, 0)
	if diff := cmp.Diff([]float64{0.5, 0.3}, probs(got), approx); diff != "" {
		t.Errorf("TopP(%v, 0.79, 0) probabilities mismatch (-want +got):\n%s", l, diff)
	}
}

func TestMinP(t *testing.T) {
	tests := []struct {
		name    string
		logits  []float64
		p       float64
		minKeep int
		want    []int32
	}{
		// threshold 4 + ln 0.05 = 1.0043: 1.5 passes, -0.5 does not.
		{name: "seed logits", logits: []float64{4, 2.5, 1.5, -0.5}, p: 0.05, want: []int32{0, 1, 2}},
		{name: "order kept", logits: []float64{1.5, -0.5, 4, 2.5}, p: 0.05, want: []int32{0, 2, 3}},
		// threshold 4 + ln 0.3 = 2.796: only 4 passes.
		{name: "strict", logits: []float64{4, 2.5, 1.5, -0.5}, p: 0.3, want: []int32{0}},
		{name: "min_keep takes the sorted path", logits: []float64{1.5, 2.5, 4, -0.5}, p: 0.3, minKeep: 2,
			want: []int32{2, 1}},
		{name: "min_keep met keeps order", logits: []float64{1.5, 2.5, 4, -0.5}, p: 0.05, minKeep: 3,
			want: []int32{0, 1, 2}},
		{name: "threshold is inclusive", logits: []float64{0, math.Log(0.5), -1}, p: 0.5, want: []int32{0, 1}},
		{name: "p 0 is off", logits: []float64{4, -10}, p: 0, want: []int32{0, 1}},
		// The sorted path's threshold is -Inf + ln p, which -Inf meets.
		{name: "all -inf keeps all", logits: []float64{negInf, negInf}, p: 0.1, want: []int32{0, 1}},
		{name: "empty", logits: []float64{}, p: 0.1, want: []int32{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(MinP(cands(tt.logits...), tt.p, tt.minKeep))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("MinP(%v, %v, %d) mismatch (-want +got):\n%s", tt.logits, tt.p, tt.minKeep, diff)
			}
		})
	}
}

func TestTypical(t *testing.T) {
	// P = 0.5, 0.3, 0.2; entropy H = 1.0297. Surprise -ln P = 0.693, 1.204,
	// 1.609; distance to H = 0.337, 0.174, 0.580: order ids 1, 0, 2.
	l := []float64{math.Log(0.5), math.Log(0.3), math.Log(0.2)}
	tests := []struct {
		name    string
		p       float64
		minKeep int
		want    []int32
	}{
		{name: "one", p: 0.2, want: []int32{1}},
		{name: "sum must exceed p", p: 0.3, want: []int32{1, 0}},
		{name: "two", p: 0.5, want: []int32{1, 0}},
		{name: "all", p: 0.9, want: []int32{1, 0, 2}},
		{name: "min_keep", p: 0.2, minKeep: 2, want: []int32{1, 0}},
		{name: "p 1 is off", p: 1, want: []int32{0, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ids(Typical(cands(l...), tt.p, tt.minKeep))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Typical(%v, %v, %d) mismatch (-want +got):\n%s", l, tt.p, tt.minKeep, diff)
			}
		})
	}
}

func TestTopNSigma(t *testing.T) {
	// Logits 10, 9, 0, 0: mean 4.75, std sqrt(90.75/4) = 4.763.
	l := []float64{0, 10, 0, 9}
	e := math.E
	sum := math.Exp(10) + math.Exp(9) + 2
	tests := []struct {
		name       string
		logits     []float64
		n          float64
		wantIDs    []int32
		wantLogits []float64
		wantP      []float64
	}{
		{name: "one sigma masks the zeros", logits: l, n: 1, wantIDs: []int32{1, 3, 0, 2},
			wantLogits: []float64{10, 9, negInf, negInf}, wantP: []float64{e / (1 + e), 1 / (1 + e), 0, 0}},
		{name: "three sigma keeps all", logits: l, n: 3, wantIDs: []int32{1, 3, 0, 2},
			wantLogits: []float64{10, 9, 0, 0},
			wantP:      []float64{math.Exp(10) / sum, math.Exp(9) / sum, 1 / sum, 1 / sum}},
		{name: "-inf ignored in the statistics", logits: []float64{negInf, 10, 9, 0, 0}, n: 1,
			wantIDs: []int32{1, 2, 0, 3, 4}, wantLogits: []float64{10, 9, negInf, negInf, negInf},
			wantP: []float64{e / (1 + e), 1 / (1 + e), 0, 0, 0}},
		{name: "n <= 0 is off", logits: l, n: -1, wantIDs: []int32{0, 1, 2, 3},
			wantLogits: l, wantP: []float64{0, 0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TopNSigma(cands(tt.logits...), tt.n)
			if diff := cmp.Diff(tt.wantIDs, ids(got)); diff != "" {
				t.Errorf("TopNSigma(%v, %v) ids mismatch (-want +got):\n%s", tt.logits, tt.n, diff)
			}
			if diff := cmp.Diff(tt.wantLogits, logits(got), approx); diff != "" {
				t.Errorf("TopNSigma(%v, %v) logits mismatch (-want +got):\n%s", tt.logits, tt.n, diff)
			}
			if diff := cmp.Diff(tt.wantP, probs(got), approx); diff != "" {
				t.Errorf("TopNSigma(%v, %v) probabilities mismatch (-want +got):\n%s", tt.logits, tt.n, diff)
			}
		})
	}
}

func TestTemperature(t *testing.T) {
	tests := []struct {
		name   string
		logits []float64
		temp   float64
		want   []float64
	}{
		{name: "sharpen", logits: []float64{1, 2, -3}, temp: 0.5, want: []float64{2, 4, -6}},
		{name: "flatten", logits: []float64{1, 2, -3}, temp: 2, want: []float64{0.5, 1, -1.5}},
		{name: "one is identity", logits: []float64{1, 2, -3}, temp: 1, want: []float64{1, 2, -3}},
		{name: "zero keeps the max", logits: []float64{1, 3, 2}, temp: 0, want: []float64{negInf, 3, negInf}},
		{name: "negative is greedy too", logits: []float64{5, 3, 2}, temp: -1, want: []float64{5, negInf, negInf}},
		{name: "greedy tie keeps the first", logits: []float64{3, 1, 3}, temp: 0, want: []float64{3, negInf, negInf}},
		{name: "empty", logits: []float64{}, temp: 0, want: []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := logits(Temperature(cands(tt.logits...), tt.temp))
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("Temperature(%v, %v) mismatch (-want +got):\n%s", tt.logits, tt.temp, diff)
			}
		})
	}
}

func TestTempExt(t *testing.T) {
	tests := []struct {
		name                  string
		logits                []float64
		temp, delta, exponent float64
		wantLogits, wantP     []float64
	}{
		{name: "no range is plain temperature", logits: []float64{1, 2}, temp: 0.5, exponent: 1,
			wantLogits: []float64{2, 4}, wantP: []float64{0, 0}},
		{name: "no range, greedy", logits: []float64{1, 2}, temp: 0, exponent: 1,
			wantLogits: []float64{negInf, 2}, wantP: []float64{0, 0}},
		// Uniform: normalized entropy 1, so the temperature is temp+delta.
		{name: "uniform uses the top", logits: []float64{1, 1, 1, 1}, temp: 0.8, delta: 0.5, exponent: 1,
			wantLogits: []float64{1 / 1.3, 1 / 1.3, 1 / 1.3, 1 / 1.3}, wantP: []float64{0.25, 0.25, 0.25, 0.25}},
		// Softmax of 2, 1, 0 is 0.6652, 0.2447, 0.0900; H = 0.83240 and
		// H/ln 3 = 0.75768, so the temperature is 0.5 + 1.0*0.75768.
		{name: "entropy picks the temperature", logits: []float64{0, 2, 1}, temp: 1, delta: 0.5, exponent: 1,
			wantLogits: []float64{2 / 1.2576791106615821, 1 / 1.2576791106615821, 0},
			wantP:      []float64{0.6040807965996157, 0.27276008011361175, 0.12315912328677264}},
		{name: "one candidate", logits: []float64{3}, temp: 1, delta: 0.5, exponent: 1,
			wantLogits: []float64{3}, wantP: []float64{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TempExt(cands(tt.logits...), tt.temp, tt.delta, tt.exponent)
			if diff := cmp.Diff(tt.wantLogits, logits(got), approx); diff != "" {
				t.Errorf("TempExt(%v, %v, %v, %v) logits mismatch (-want +got):\n%s",
					tt.logits, tt.temp, tt.delta, tt.exponent, diff)
			}
			if diff := cmp.Diff(tt.wantP, probs(got), approx); diff != "" {
				t.Errorf("TempExt(%v, %v, %v, %v) probabilities mismatch (-want +got):\n%s",
					tt.logits, tt.temp, tt.delta, tt.exponent, diff)
			}
		})
	}
}

func TestPenalties(t *testing.T) {
	l := []float64{3.0, -1.0, 2.0, 0.0}
	tests := []struct {
		name                   string
		history                []int32
		lastN                  int
		repeat, freq, presence float64
		want                   []float64
	}{
		// 3.0/1.1 = 2.7272...; -1.0*1.1 = -1.1; 0 stays 0 (multiplied).
		{name: "divide positive, multiply negative", history: []int32{0, 1, 3, 0}, lastN: 64, repeat: 1.1,
			want: []float64{3.0 / 1.1, -1.1, 2.0, 0}},
		{name: "seed's 1.5", history: []int32{0}, lastN: 64, repeat: 1.5, want: []float64{2, -1, 2, 0}},
		// id 0 seen twice: 2.727 - 2*0.5 - 0.25; id 1 once: -1.1 - 0.5 - 0.25.
		{name: "frequency and presence", history: []int32{0, 1, 0, 7}, lastN: 64, repeat: 1.1, freq: 0.5, presence: 0.25,
			want: []float64{3.0/1.1 - 1.25, -1.85, 2.0, 0}},
		{name: "presence alone", history: []int32{2, 2, 2}, lastN: 64, repeat: 1, presence: 0.5,
			want: []float64{3, -1, 1.5, 0}},
		{name: "only the last n", history: []int32{1, 1, 0, 7}, lastN: 2, repeat: 2, want: []float64{1.5, -1, 2, 0}},
		{name: "last n -1 is all", history: []int32{1, 1, 0, 7}, lastN: -1, repeat: 2, want: []float64{1.5, -2, 2, 0}},
		{name: "last n 0 is off", history: []int32{0}, lastN: 0, repeat: 2, want: l},
		{name: "repeat 1 is off", history: []int32{0, 1}, lastN: 64, repeat: 1, want: l},
		{name: "no history", lastN: 64, repeat: 2, want: l},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := logits(Penalties(cands(l...), tt.history, tt.lastN, tt.repeat, tt.freq, tt.presence))
			if diff := cmp.Diff(tt.want, got, approx); diff != "" {
				t.Errorf("Penalties(%v, %v, %d, %v, %v, %v) mismatch (-want +got):\n%s",
					l, tt.history, tt.lastN, tt.repeat, tt.freq, tt.presence, diff)
			}
		})
	}
	if got := Penalties(cands(3.0), []int32{0}, 64, 1.1, 0, 0)[0].Logit; math.Abs(got-2.727272727) > 1e-9 {
		t.Errorf("Penalties(3.0, repeat 1.1) = %v, want 2.7272...", got)
	}
}

func TestLogitBias(t *testing.T) {
	tests := []struct {
		name string
		bias map[int32]float32
		want []float64
	}{
		{name: "add", bias: map[int32]float32{1: 2, 9: 3}, want: []float64{1, 3, 1}},
		{name: "ban", bias: map[int32]float32{0: float32(math.Inf(-1))}, want: []float64{negInf, 1, 1}},
		{name: "none", want: []float64{1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := logits(LogitBias(cands(1, 1, 1), tt.bias))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LogitBias(%v) mismatch (-want +got):\n%s", tt.bias, diff)
			}
		})
	}
}

// cmpApprox compares floats within tol relative, treating equal infinities
// as equal.
func cmpApprox(tol float64) cmp.Option {
	return cmpopts.EquateApprox(tol, 1e-9)
}
