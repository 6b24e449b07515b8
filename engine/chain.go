package engine

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/loopagent/loop/llama"
	"github.com/loopagent/loop/sampler"
)

// Chain builds llama.cpp's sampler chain for cfg on context c, as
// common_sampler_init does: logit biases first (text biases tokenized with
// c's model), then the samplers of cfg.Order, then dist; or temperature and
// Mirostat when cfg.Mirostat is 1 or 2. cfg.Greedy ends the order with
// greedy instead of dist, so penalties and DRY still run. A look-back of -1
// (penalty_last_n, dry_penalty_last_n) means the context: one sequence's
// share of c, as llama.cpp's common code maps it to n_ctx. A RandomSeed is
// replaced by a random one; Seed reports it. The grammar is not part of the
// chain: pass it to Generate.
func Chain(c *llama.Context, cfg sampler.Config) (*llama.Sampler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := c.Model()
	if cfg.PenaltyLastN == -1 {
		cfg.PenaltyLastN = c.SeqSize()
	}
	if cfg.DRYLastN == -1 {
		cfg.DRYLastN = c.SeqSize()
	}
	seed := cfg.Seed
	if seed == sampler.RandomSeed {
		seed = rand.Uint32()
	}
	ch := llama.NewChain(false)
	add := func(s *llama.Sampler, err error) error {
		if err != nil {
			return err
		}
		return ch.Add(s)
	}
	err := chainBody(m, cfg, seed, add)
	if err != nil {
		ch.Close()
		return nil, err
	}
	return ch, nil
}

type adder func(*llama.Sampler, error) error

func chainBody(m *llama.Model, cfg sampler.Config, seed uint32, add adder) error {
	if len(cfg.LogitBias) > 0 {
		bias, err := cfg.ResolveBias(func(s string) ([]int32, error) { return m.Tokenize(s, false, false) })
		if err != nil {
			return err
		}
		if err := add(m.NewLogitBias(bias)); err != nil {
			return err
		}
	}
	switch cfg.Mirostat {
	case 1:
		if err := add(llama.NewTemp(cfg.Temperature), nil); err != nil {
			return err
		}
		return add(llama.NewMirostat(m.VocabSize(), seed, cfg.MirostatTau, cfg.MirostatEta, 100), nil)
	case 2:
		if err := add(llama.NewTemp(cfg.Temperature), nil); err != nil {
			return err
		}
		return add(llama.NewMirostatV2(seed, cfg.MirostatTau, cfg.MirostatEta), nil)
	}
	for _, k := range cfg.Order {
		s, err := stage(m, cfg, k, seed)
		if err != nil {
			return err
		}
		if err := add(s, nil); err != nil {
			return err
		}
	}
	if cfg.Greedy {
		return add(llama.NewGreedy(), nil)
	}
	return add(llama.NewDist(seed), nil)
}

// stage is one sampler of the order, with cfg's values.
func stage(m *llama.Model, cfg sampler.Config, k sampler.Kind, seed uint32) (*llama.Sampler, error) {
	switch k {
	case sampler.KindPenalties:
		return llama.NewPenalties(cfg.PenaltyLastN, cfg.RepeatPenalty, cfg.FrequencyPenalty, cfg.PresencePenalty), nil
	case sampler.KindDRY:
		return m.NewDRY(cfg.DRYMultiplier, cfg.DRYBase, cfg.DRYAllowedLength, cfg.DRYLastN, cfg.DRYBreakers)
	case sampler.KindTopNSigma:
		return llama.NewTopNSigma(cfg.TopNSigma), nil
	case sampler.KindTopK:
		return llama.NewTopK(cfg.TopK), nil
	case sampler.KindTypicalP:
		return llama.NewTypical(cfg.TypicalP, cfg.MinKeep), nil
	case sampler.KindTopP:
		return llama.NewTopP(cfg.TopP, cfg.MinKeep), nil
	case sampler.KindMinP:
		return llama.NewMinP(cfg.MinP, cfg.MinKeep), nil
	case sampler.KindXTC:
		return llama.NewXTC(cfg.XTCProbability, cfg.XTCThreshold, cfg.MinKeep, seed), nil
	case sampler.KindTemperature:
		return llama.NewTempExt(cfg.Temperature, cfg.DynatempRange, cfg.DynatempExponent), nil
	case sampler.KindInfill:
		return m.NewInfill()
	}
	return nil, fmt.Errorf("engine: sampler %q has no llama.cpp counterpart here", k)
}

// SamplingMeta returns the model's general.sampling.* keys as strings, for
// sampler.Resolve.
func SamplingMeta(m *llama.Model) map[string]string {
	out := map[string]string{}
	for _, kv := range m.Metadata() {
		if !strings.HasPrefix(kv.Key, "general.sampling.") {
			continue
		}
		if s, ok := kv.Value.Value.(string); ok {
			out[kv.Key] = s
		} else {
			out[kv.Key] = fmt.Sprint(kv.Value.Value)
		}
	}
	return out
}
