package sampler

import (
	"math"
	"slices"
)

// The filters below work in place, like llama.cpp's apply functions on a
// llama_token_data_array: they may reorder c and return the part of it that
// remains. Use the returned slice, not c, afterwards.

// TopK keeps the k candidates with the highest logits, sorted by
// descending logit. k <= 0 keeps all, unchanged. k is raised to minKeep
// (llama.cpp's chain passes no min_keep to top_k at this commit, so
// Distribution passes 0).
func TopK(c []Candidate, k, minKeep int) []Candidate {
	if k <= 0 {
		return c
	}
	k = min(max(k, minKeep), len(c))
	slices.SortFunc(c, byLogit)
	return c[:k]
}

// TopP is nucleus sampling: it computes the softmax of c, sorts by
// descending logit, and keeps the shortest prefix whose probabilities sum
// to at least p, and at least minKeep candidates. p >= 1 keeps all,
// unchanged. The P fields are left as the softmax over c before the cut.
func TopP(c []Candidate, p float64, minKeep int) []Candidate {
	if p >= 1 {
		return c
	}
	Softmax(c)
	slices.SortFunc(c, byLogit)
	cum := 0.0
	for i := range c {
		cum += c[i].P
		if cum >= p && i+1 >= minKeep {
			return c[:i+1]
		}
	}
	return c
}

// MinP keeps the candidates whose probability is at least p times the top
// candidate's, which is the same as a logit of at least max + ln(p), so it
// needs no softmax. When enough candidates pass (at least one, and at
// least minKeep), it keeps them in their order. Otherwise, like llama.cpp's
// sorted path, it sorts by descending logit and keeps the passing ones
// topped up to minKeep (and always the first). p <= 0 keeps all.
func MinP(c []Candidate, p float64, minKeep int) []Candidate {
	if p <= 0 || len(c) == 0 {
		return c
	}
	m := -math.MaxFloat64
	for _, x := range c {
		m = max(m, x.Logit)
	}
	threshold := m + math.Log(p)
	n := 0
	for _, x := range c {
		if x.Logit >= threshold {
			n++
		}
	}
	if n > 0 && n >= minKeep {
		kept := c[:0]
		for _, x := range c {
			if x.Logit >= threshold {
				kept = append(kept, x)
			}
		}
		return kept
	}
	slices.SortFunc(c, byLogit)
	threshold = c[0].Logit + math.Log(p)
	i := 1
	for ; i < len(c); i++ {
		if c[i].Logit < threshold && i >= minKeep {
			break
		}
	}
	return c[:i]
}

// Typical is locally typical sampling: it sorts c by logit and computes the
// softmax and its entropy H, orders the candidates by how far their
// surprise -ln(P) is from H, and keeps the closest ones until their
// probabilities sum to more than p, and at least minKeep of them. The
// result is in that order, not by logit. p >= 1 keeps all, unchanged.
// Candidates with P 0 count as infinitely far from H (llama.cpp would get
// NaN there).
func Typical(c []Candidate, p float64, minKeep int) []Candidate {
	if p >= 1 || len(c) == 0 {
		return c
	}
	slices.SortFunc(c, byLogit)
	Softmax(c)
	entropy := Entropy(c)
	type scored struct {
		Candidate
		shift float64
	}
	s := make([]scored, len(c))
	for i, x := range c {
		s[i] = scored{x, math.Inf(1)}
		if x.P > 0 {
			s[i].shift = math.Abs(-math.Log(x.P) - entropy)
		}
	}
	slices.SortStableFunc(s, func(a, b scored) int {
		switch {
		case a.shift < b.shift:
			return -1
		case a.shift > b.shift:
			return 1
		}
		return 0
	})
	last, cum := len(s), 0.0
	for i := range s {
		cum += s[i].P
		if cum > p && (minKeep <= 0 || i >= minKeep-1) {
			last = i + 1
			break
		}
	}
	for i := range last {
		c[i] = s[i].Candidate
	}
	return c[:last]
}

// TopNSigma sets to -Inf every logit more than n standard deviations below
// the highest one (mean and deviation over the logits that are not -Inf),
// then sorts by descending logit and computes the softmax. The masked
// candidates stay in the slice with P 0, as in llama.cpp. n <= 0 or fewer
// than two candidates leave c unchanged.
func TopNSigma(c []Candidate, n float64) []Candidate {
	if n <= 0 || len(c) <= 1 {
		return c
	}
	m, sum, valid := c[0].Logit, 0.0, 0
	for _, x := range c {
		if !math.IsInf(x.Logit, -1) {
			m = max(m, x.Logit)
			sum += x.Logit
			valid++
		}
	}
	mean, std := 0.0, 0.0
	if valid > 0 {
		mean = sum / float64(valid)
		acc := 0.0
		for _, x := range c {
			if !math.IsInf(x.Logit, -1) {
				acc += (x.Logit - mean) * (x.Logit - mean)
			}
		}
		std = math.Sqrt(acc / float64(valid))
	}
	for i := range c {
		if c[i].Logit < m-n*std {
			c[i].Logit = math.Inf(-1)
		}
	}
	slices.SortFunc(c, byLogit)
	return Softmax(c)
}
