package sampler

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// seedLogits are seed 000 Example 6's: read_file, read, list_files, and 20
// unrelated tokens.
var seedLogits = append([]float32{4.0, 2.5, 1.5}, repeat32(-0.5, 20)...)

// shares sums a distribution into Example 6's columns.
func shares(c []Candidate) (right, wrong, tail float64) {
	for _, x := range c {
		switch {
		case x.ID == 0:
			right += x.P
		case x.ID <= 2:
			wrong += x.P
		default:
			tail += x.P
		}
	}
	return right, wrong, tail
}

// seedConfig is the Example 6 program's chain: min_p, then temperature.
func seedConfig(minP, temp float32) Config {
	c := Defaults()
	c.Order = []Kind{KindMinP, KindTemperature}
	c.MinP, c.Temperature = minP, temp
	return c
}

func TestDistributionSeedTable(t *testing.T) {
	// The rows of Example 6's first table, to its 4 decimals.
	tests := []struct {
		name                     string
		temp, minP               float32
		right, wrong, tail, five float64
	}{
		{"temp 0.0", 0.0, 0.00, 1.0000, 0.0000, 0.0000, 1.0000},
		{"temp 0.2", 0.2, 0.00, 0.9994, 0.0006, 0.0000, 0.9972},
		{"temp 0.2 min_p", 0.2, 0.05, 0.9994, 0.0006, 0.0000, 0.9972},
		{"temp 0.6", 0.6, 0.00, 0.9020, 0.0880, 0.0100, 0.5971},
		{"temp 0.6 min_p", 0.6, 0.05, 0.9111, 0.0889, 0.0000, 0.6278},
		{"temp 1.0", 1.0, 0.00, 0.6547, 0.1998, 0.1455, 0.1203},
		{"temp 1.0 min_p", 1.0, 0.05, 0.7662, 0.2338, 0.0000, 0.2640},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Distribution(seedConfig(tt.minP, tt.temp), seedLogits, nil)
			right, wrong, tail := shares(got)
			for _, v := range []struct {
				col       string
				got, want float64
			}{
				{"P(read_file)", right, tt.right},
				{"P(wrong tool)", wrong, tt.wrong},
				{"P(tail)", tail, tt.tail},
				{"P(5 steps)", math.Pow(right, 5), tt.five},
			} {
				if math.Abs(v.got-v.want) > 0.00005 {
					t.Errorf("Distribution(temp %v, min_p %v) %s = %.6f, want %.4f", tt.temp, tt.minP, v.col, v.got, v.want)
				}
			}
		})
	}
}

func TestDistributionHandCalculation(t *testing.T) {
	// Example 6's hand calculation at temperature 1.0 without min_p:
	// e^4.0 = 54.598, e^2.5 = 12.183, e^1.5 = 4.482, 20*e^-0.5 = 12.131,
	// sum 83.394.
	got := Distribution(seedConfig(0, 1), seedLogits, nil)
	right, _, tail := shares(got)
	check := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.6f, want %v", what, got, want)
		}
	}
	check("P(read_file) = 54.598/83.394", right, 0.6547, 0.00005)
	check("P(tail) = 12.131/83.394", tail, 0.1455, 0.00005)
	check("54.598/83.394", 54.598/83.394, right, 0.00005)
	// With min_p 0.05 the tail goes: 54.598 / (54.598+12.183+4.482) = 0.766.
	right, _, tail = shares(Distribution(seedConfig(0.05, 1), seedLogits, nil))
	check("P(read_file) with min_p 0.05", right, 0.766, 0.0005)
	check("54.598/71.263", 54.598/71.263, right, 0.0005)
	check("P(tail) with min_p 0.05", tail, 0, 0)
	// The tail tokens are exp(-4.5) = 0.011 of the top token's probability,
	// below min_p 0.05.
	check("exp(-4.5)", math.Exp(-4.5), 0.011, 0.0005)
}

func TestDistributionDefaults(t *testing.T) {
	// llama.cpp's default chain on the seed's logits: top_k 40 keeps all 23,
	// top_p 0.95 and min_p 0.05 remove the tail, temperature 0.8 leaves
	// e^(4/0.8), e^(2.5/0.8), e^(1.5/0.8) normalized.
	got := Distribution(Defaults(), seedLogits, nil)
	want := []Candidate{
		{ID: 0, Logit: 4 / 0.8, P: 0.8352182117066334},
		{ID: 1, Logit: 2.5 / 0.8, P: 0.12808486116455123},
		{ID: 2, Logit: 1.5 / 0.8, P: 0.03669692712881539},
	}
	// Temperature is float32 0.8, as in llama.cpp: allow for it.
	if diff := cmp.Diff(want, got, cmpApprox(1e-6)); diff != "" {
		t.Errorf("Distribution(Defaults()) mismatch (-want +got):\n%s", diff)
	}
}

func TestDistribution(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		logits  []float32
		history []int32
		want    []Candidate
	}{
		{name: "greedy flag", cfg: func() Config { c := seedConfig(0, 1); c.Greedy = true; return c }(),
			logits: []float32{1, 3, 2},
			want:   []Candidate{{ID: 1, Logit: 3, P: 1}, {ID: 0, Logit: 1}, {ID: 2, Logit: 2}}},
		{name: "temperature 0 keeps -inf candidates with P 0, ties by id",
			cfg: seedConfig(0, 0), logits: []float32{1, 3, 2},
			want: []Candidate{{ID: 1, Logit: 3, P: 1}, {ID: 0, Logit: math.Inf(-1)}, {ID: 2, Logit: math.Inf(-1)}}},
		{name: "one candidate left gets 1", cfg: func() Config { c := seedConfig(0, 1); c.Order = []Kind{KindTopK}; c.TopK = 1; return c }(),
			logits: []float32{1, 3, 2}, want: []Candidate{{ID: 1, Logit: 3, P: 1}}},
		{name: "empty chain is the softmax", cfg: func() Config { c := Defaults(); c.Order = nil; return c }(),
			logits: []float32{0, float32(math.Log(3))},
			want:   []Candidate{{ID: 1, Logit: math.Log(3), P: 0.75}, {ID: 0, P: 0.25}}},
		{name: "bias bans a token", cfg: func() Config {
			c := seedConfig(0, 1)
			c.LogitBias = []Bias{{Token: 1, Value: float32(math.Inf(-1))}, {Text: "skipped", Value: 100}}
			return c
		}(), logits: []float32{0, float32(math.Log(3)), 0},
			want: []Candidate{{ID: 0, P: 0.5}, {ID: 2, P: 0.5}, {ID: 1, Logit: math.Inf(-1)}}},
		{name: "penalty in the chain", cfg: func() Config {
			c := seedConfig(0, 1)
			c.Order, c.RepeatPenalty = []Kind{KindPenalties, KindTemperature}, 2
			return c
		}(), logits: []float32{2 * float32(math.Log(3)), 0}, history: []int32{0},
			want: []Candidate{{ID: 0, Logit: math.Log(3), P: 0.75}, {ID: 1, P: 0.25}}},
		{name: "dry and xtc are skipped", cfg: func() Config {
			c := seedConfig(0, 1)
			c.Order = []Kind{KindDRY, KindXTC, KindInfill}
			c.XTCProbability, c.DRYMultiplier = 1, 10
			return c
		}(), logits: []float32{0, float32(math.Log(3))}, history: []int32{1, 1, 1},
			want: []Candidate{{ID: 1, Logit: math.Log(3), P: 0.75}, {ID: 0, P: 0.25}}},
		{name: "mirostat runs temperature only", cfg: func() Config {
			c := seedConfig(0.5, 0.5)
			c.Mirostat = 2
			return c
		}(), logits: []float32{0, float32(math.Log(3)) / 2},
			want: []Candidate{{ID: 1, Logit: math.Log(3), P: 0.75}, {ID: 0, P: 0.25}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Distribution(tt.cfg, tt.logits, tt.history)
			if diff := cmp.Diff(tt.want, got, cmpApprox(1e-6)); diff != "" {
				t.Errorf("Distribution(%v) mismatch (-want +got):\n%s", tt.logits, diff)
			}
		})
	}
}

func TestDistributionSortedTiesByID(t *testing.T) {
	got := Distribution(seedConfig(0, 1), seedLogits, nil)
	for i := 1; i < len(got); i++ {
		a, b := got[i-1], got[i]
		if a.P < b.P || (a.P == b.P && a.ID > b.ID) {
			t.Fatalf("Distribution: %v before %v, want descending P, ties by id", a, b)
		}
	}
	if len(got) != len(seedLogits) {
		t.Errorf("Distribution kept %d candidates, want %d", len(got), len(seedLogits))
	}
}
