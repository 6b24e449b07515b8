package sampler

import "slices"

// Distribution returns the probabilities from which llama.cpp would draw
// the next token, given a row of logits (logits[i] is token i's) and the
// tokens generated so far (history, oldest first, for the penalties).
//
// It runs what llama.cpp's common_sampler_init builds from cfg: the id
// entries of cfg.LogitBias, then cfg.Order, then the dist sampler's
// softmax over what is left. Only the deterministic samplers run: dry is
// skipped (it needs the vocabulary's text and a long history scan), xtc is
// skipped (it fires at random, with probability XTCProbability), and
// infill is skipped (it needs the vocabulary). Text entries of LogitBias
// are skipped too; turn them into id entries with ResolveBias first. With
// Mirostat on, llama.cpp replaces the chain with temperature and Mirostat;
// Distribution then applies the temperature only, since Mirostat's cut
// depends on its running state.
//
// With cfg.Greedy the chain still runs and the highest remaining logit
// gets probability 1. Temperature <= 0 has the same effect through the
// temperature sampler. Candidates that a sampler set to -Inf (greedy
// temperature, top_n_sigma, a -Inf bias) stay in the result with P 0, as
// in llama.cpp. The result is sorted by descending P, ties by ascending
// id.
func Distribution(cfg Config, logits []float32, history []int32) []Candidate {
	c := LogitBias(Candidates(logits), idBias(cfg.LogitBias))
	if cfg.Mirostat != 0 {
		c = Temperature(c, float64(cfg.Temperature))
	} else {
		for _, k := range cfg.Order {
			c = applyKind(cfg, k, c, history)
		}
	}
	if cfg.Greedy {
		c = selectGreedy(c)
	} else {
		c = dist(c)
	}
	slices.SortFunc(c, byP)
	return c
}

// applyKind runs one sampler of the chain with cfg's parameters, as
// common_sampler_init constructs it.
func applyKind(cfg Config, k Kind, c []Candidate, history []int32) []Candidate {
	minKeep := cfg.MinKeep
	switch k {
	case KindPenalties:
		return Penalties(c, history, cfg.PenaltyLastN, float64(cfg.RepeatPenalty),
			float64(cfg.FrequencyPenalty), float64(cfg.PresencePenalty))
	case KindTopNSigma:
		return TopNSigma(c, float64(cfg.TopNSigma))
	case KindTopK:
		return TopK(c, cfg.TopK, 0)
	case KindTypicalP:
		return Typical(c, float64(cfg.TypicalP), minKeep)
	case KindTopP:
		return TopP(c, float64(cfg.TopP), minKeep)
	case KindMinP:
		return MinP(c, float64(cfg.MinP), minKeep)
	case KindTemperature:
		return TempExt(c, float64(cfg.Temperature), float64(cfg.DynatempRange), float64(cfg.DynatempExponent))
	}
	return c // dry, xtc, infill: see Distribution
}

// dist computes the probabilities as llama.cpp's dist sampler does: a
// single candidate gets 1, more get the softmax.
func dist(c []Candidate) []Candidate {
	if len(c) == 1 {
		c[0].P = 1
		return c
	}
	return Softmax(c)
}

// selectGreedy gives probability 1 to the first candidate with the highest
// logit and 0 to the others, as llama.cpp's greedy sampler selects it.
func selectGreedy(c []Candidate) []Candidate {
	best := 0
	for i := range c {
		c[i].P = 0
		if c[i].Logit > c[best].Logit {
			best = i
		}
	}
	if len(c) > 0 {
		c[best].P = 1
	}
	return c
}

// idBias collects the id entries of bias, adding up repeated ids.
func idBias(bias []Bias) map[int32]float32 {
	if len(bias) == 0 {
		return nil
	}
	m := make(map[int32]float32, len(bias))
	for _, b := range bias {
		if b.Text == "" {
			m[b.Token] += b.Value
		}
	}
	return m
}
