package sampler

import (
	"cmp"
	"math"
	"slices"
)

// Candidate is one token under consideration: its id, its logit (score)
// and its probability. It mirrors llama.cpp's llama_token_data, but in
// float64 where llama.cpp uses float32, so results agree with llama.cpp's
// within about 1e-6.
type Candidate struct {
	// ID is the token id.
	ID int32
	// Logit is the token's score; -Inf means a sampler removed it.
	Logit float64
	// P is the token's probability, valid after Softmax or a sampler that
	// computes it.
	P float64
}

// Candidates returns one Candidate per logit, with ID i for logits[i], as
// llama.cpp builds its candidate array from a row of logits.
func Candidates(logits []float32) []Candidate {
	c := make([]Candidate, len(logits))
	for i, l := range logits {
		c[i] = Candidate{ID: int32(i), Logit: float64(l)}
	}
	return c
}

// byLogit orders candidates by descending logit, ties by ascending id.
// llama.cpp's sort leaves the order of ties unspecified; this one is
// deterministic.
func byLogit(a, b Candidate) int {
	if c := cmp.Compare(b.Logit, a.Logit); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// byP orders candidates by descending probability, ties by ascending id.
func byP(a, b Candidate) int {
	if c := cmp.Compare(b.P, a.P); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// maxLogit returns the highest logit in c, or -Inf for an empty c.
func maxLogit(c []Candidate) float64 {
	m := math.Inf(-1)
	for _, x := range c {
		m = max(m, x.Logit)
	}
	return m
}

// Entropy is -sum P ln P over c's probabilities, in nats; candidates with
// P 0 add nothing.
func Entropy(c []Candidate) float64 {
	h := 0.0
	for _, x := range c {
		if x.P > 0 {
			h -= x.P * math.Log(x.P)
		}
	}
	return h
}

// Softmax sets each candidate's P to exp(logit - max) divided by the sum,
// without reordering c, as llama.cpp's softmax does without sorting. It
// returns c. Candidates with a -Inf logit get P 0; if every logit is -Inf,
// every P is 0.
func Softmax(c []Candidate) []Candidate {
	m := maxLogit(c)
	if math.IsInf(m, -1) {
		for i := range c {
			c[i].P = 0
		}
		return c
	}
	sum := 0.0
	for i := range c {
		c[i].P = math.Exp(c[i].Logit - m)
		sum += c[i].P
	}
	for i := range c {
		c[i].P /= sum
	}
	return c
}

// LogitBias adds bias[id] to the logit of each candidate with that id, as
// llama.cpp's logit_bias sampler does. It returns c.
func LogitBias(c []Candidate, bias map[int32]float32) []Candidate {
	if len(bias) == 0 {
		return c
	}
	for i := range c {
		if b, ok := bias[c[i].ID]; ok {
			c[i].Logit += float64(b)
		}
	}
	return c
}

// Penalties applies llama.cpp's repeat, frequency and presence penalties
// to the tokens that occur in the last lastN tokens of history (all of it
// when lastN < 0, which llama.cpp's -1 "context size" amounts to; none when
// lastN is 0). For each such token, a positive logit is divided by repeat
// and a logit <= 0 is multiplied by it, so the penalty always lowers the
// score: 3.0 becomes 3.0/1.1 = 2.727 and -1.0 becomes -1.1. Then
// count*freq + present is subtracted, count being the occurrences in the
// window. It returns c, unchanged when repeat is 1 and freq and present
// are 0.
func Penalties(c []Candidate, history []int32, lastN int, repeat, freq, present float64) []Candidate {
	if lastN == 0 || (repeat == 1 && freq == 0 && present == 0) {
		return c
	}
	if lastN > 0 && len(history) > lastN {
		history = history[len(history)-lastN:]
	}
	counts := make(map[int32]int, len(history))
	for _, id := range history {
		counts[id]++
	}
	for i := range c {
		n := counts[c[i].ID]
		if n == 0 {
			continue
		}
		if c[i].Logit <= 0 {
			c[i].Logit *= repeat
		} else {
			c[i].Logit /= repeat
		}
		c[i].Logit -= float64(n)*freq + present
	}
	return c
}

// Temperature divides every logit by temp, as llama.cpp's temp sampler
// does. When temp <= 0 it keeps only the highest logit (the first one, on a
// tie) and sets the others to -Inf, so the following softmax gives that
// token probability 1: greedy decoding. It returns c.
func Temperature(c []Candidate, temp float64) []Candidate {
	if len(c) == 0 {
		return c
	}
	if temp <= 0 {
		best := 0
		for i := 1; i < len(c); i++ {
			if c[i].Logit > c[best].Logit {
				c[best].Logit = math.Inf(-1)
				best = i
			} else {
				c[i].Logit = math.Inf(-1)
			}
		}
		return c
	}
	for i := range c {
		c[i].Logit /= temp
	}
	return c
}

// TempExt is llama.cpp's temp_ext sampler, the one its default chain uses.
// With delta <= 0 it is Temperature(c, temp). With delta > 0 it is dynamic
// temperature: it sorts c by logit, measures the entropy of the softmax,
// normalizes it by the largest possible entropy log(len(c)), and uses
// temperature min + (max-min) * normalized^exponent, where min is
// max(0, temp-delta) and max is temp+delta. It then sets P from the scaled
// logits. It returns c.
func TempExt(c []Candidate, temp, delta, exponent float64) []Candidate {
	if delta <= 0 {
		return Temperature(c, temp)
	}
	if len(c) <= 1 {
		return c
	}
	lo, hi := max(0, temp-delta), temp+delta
	maxEntropy := math.Log(float64(len(c)))
	slices.SortFunc(c, byLogit)
	Softmax(c)
	entropy := Entropy(c)
	dyn := lo + (hi-lo)*math.Pow(entropy/maxEntropy, exponent)
	Temperature(c, dyn)
	return Softmax(c)
}
