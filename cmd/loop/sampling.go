package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/llama"
	"github.com/loopagent/loop/sampler"
	"github.com/spf13/pflag"
)

// samplingFlags are llama.cpp's sampling flags. Only the flags given on the
// command line override the preset, the model's general.sampling.* keys and
// llama.cpp's defaults, in that order.
type samplingFlags struct {
	fs        *pflag.FlagSet
	preset    string
	temp      float32
	dynRange  float32
	dynExp    float32
	topK      int
	topP      float32
	minP      float32
	typical   float32
	topNSigma float32
	xtcP      float32
	xtcT      float32
	dryMult   float32
	dryBase   float32
	dryLen    int
	dryLastN  int
	repeat    float32
	freq      float32
	presence  float32
	lastN     int
	mirostat  int
	miroTau   float32
	miroEta   float32
	seed      int64
	samplers  string
	seq       string
	bias      []string
}

func (f *samplingFlags) register(fs *pflag.FlagSet) {
	f.fs = fs
	d := sampler.Defaults()
	fs.StringVar(&f.preset, "preset", "", "sampling preset: "+strings.Join(sampler.PresetNames(), ", "))
	fs.Float32Var(&f.temp, "temp", d.Temperature, "temperature; 0 or less is greedy")
	fs.Float32Var(&f.dynRange, "dynatemp-range", d.DynatempRange, "dynamic temperature range")
	fs.Float32Var(&f.dynExp, "dynatemp-exp", d.DynatempExponent, "dynamic temperature exponent")
	fs.IntVar(&f.topK, "top-k", d.TopK, "top-k (0: off)")
	fs.Float32Var(&f.topP, "top-p", d.TopP, "top-p (1: off)")
	fs.Float32Var(&f.minP, "min-p", d.MinP, "min-p (0: off)")
	fs.Float32Var(&f.typical, "typical", d.TypicalP, "locally typical sampling p (1: off)")
	fs.Float32Var(&f.topNSigma, "top-n-sigma", d.TopNSigma, "top-n-sigma (-1: off)")
	fs.Float32Var(&f.xtcP, "xtc-probability", d.XTCProbability, "XTC probability (0: off)")
	fs.Float32Var(&f.xtcT, "xtc-threshold", d.XTCThreshold, "XTC threshold")
	fs.Float32Var(&f.dryMult, "dry-multiplier", d.DRYMultiplier, "DRY multiplier (0: off)")
	fs.Float32Var(&f.dryBase, "dry-base", d.DRYBase, "DRY base")
	fs.IntVar(&f.dryLen, "dry-allowed-length", d.DRYAllowedLength, "DRY allowed length")
	fs.IntVar(&f.dryLastN, "dry-penalty-last-n", d.DRYLastN, "DRY look-back (-1: context)")
	fs.Float32Var(&f.repeat, "repeat-penalty", d.RepeatPenalty, "repeat penalty (1: off)")
	fs.Float32Var(&f.freq, "frequency-penalty", d.FrequencyPenalty, "frequency penalty (0: off)")
	fs.Float32Var(&f.presence, "presence-penalty", d.PresencePenalty, "presence penalty (0: off)")
	fs.IntVar(&f.lastN, "repeat-last-n", d.PenaltyLastN, "tokens the penalties look back (-1: context)")
	fs.IntVar(&f.mirostat, "mirostat", d.Mirostat, "Mirostat version (0: off, 1, 2)")
	fs.Float32Var(&f.miroTau, "mirostat-ent", d.MirostatTau, "Mirostat target entropy")
	fs.Float32Var(&f.miroEta, "mirostat-lr", d.MirostatEta, "Mirostat learning rate")
	fs.Int64Var(&f.seed, "seed", -1, "sampling seed, 0..4294967295 (-1: random)")
	fs.StringVar(&f.samplers, "samplers", sampler.FormatOrder(d.Order), "sampler order, ';'-separated")
	fs.StringVar(&f.seq, "sampling-seq", "", "sampler order as letters (llama.cpp's --sampling-seq)")
	fs.StringArrayVar(&f.bias, "logit-bias", nil, `bias a token: ID+BIAS, ID-BIAS, or 'TEXT'+BIAS (repeatable)`)
}

// overrides returns the settings given on the command line, on top of the
// preset.
func (f *samplingFlags) overrides() (sampler.Overrides, error) {
	var o sampler.Overrides
	if f.preset != "" {
		p, err := sampler.Preset(f.preset)
		if err != nil {
			return o, usageError{err}
		}
		o = p
	}
	var u sampler.Overrides
	set := func(name string, apply func()) {
		if f.fs.Changed(name) {
			apply()
		}
	}
	set("temp", func() { u.Temperature = &f.temp })
	set("dynatemp-range", func() { u.DynatempRange = &f.dynRange })
	set("dynatemp-exp", func() { u.DynatempExponent = &f.dynExp })
	set("top-k", func() { u.TopK = &f.topK })
	set("top-p", func() { u.TopP = &f.topP })
	set("min-p", func() { u.MinP = &f.minP })
	set("typical", func() { u.TypicalP = &f.typical })
	set("top-n-sigma", func() { u.TopNSigma = &f.topNSigma })
	set("xtc-probability", func() { u.XTCProbability = &f.xtcP })
	set("xtc-threshold", func() { u.XTCThreshold = &f.xtcT })
	set("dry-multiplier", func() { u.DRYMultiplier = &f.dryMult })
	set("dry-base", func() { u.DRYBase = &f.dryBase })
	set("dry-allowed-length", func() { u.DRYAllowedLength = &f.dryLen })
	set("dry-penalty-last-n", func() { u.DRYLastN = &f.dryLastN })
	set("repeat-penalty", func() { u.RepeatPenalty = &f.repeat })
	set("frequency-penalty", func() { u.FrequencyPenalty = &f.freq })
	set("presence-penalty", func() { u.PresencePenalty = &f.presence })
	set("repeat-last-n", func() { u.PenaltyLastN = &f.lastN })
	set("mirostat", func() { u.Mirostat = &f.mirostat })
	set("mirostat-ent", func() { u.MirostatTau = &f.miroTau })
	set("mirostat-lr", func() { u.MirostatEta = &f.miroEta })
	if f.seed < -1 || f.seed > math.MaxUint32 {
		return o, usagef("--seed %d: want -1 (random) or 0..%d", f.seed, uint32(math.MaxUint32))
	}
	if f.fs.Changed("seed") && f.seed >= 0 {
		u.Seed = sampler.Ptr(uint32(f.seed))
	}
	if err := f.order(&u); err != nil {
		return o, err
	}
	if len(f.bias) > 0 {
		b, err := parseBias(f.bias)
		if err != nil {
			return o, err
		}
		u.LogitBias = &b
	}
	o = o.Merge(u)
	// Check the settings now, before a model loads; the model's own
	// general.sampling.* keys are layered under them later.
	if _, err := sampler.Resolve(nil, o); err != nil {
		return o, usageError{err}
	}
	return o, nil
}

func (f *samplingFlags) order(u *sampler.Overrides) error {
	var err error
	var order []sampler.Kind
	switch {
	case f.fs.Changed("samplers"):
		order, err = sampler.ParseOrder(f.samplers)
	case f.fs.Changed("sampling-seq"):
		order, err = sampler.ParseSequence(f.seq)
	default:
		return nil
	}
	if err != nil {
		return usageError{err}
	}
	u.Order = &order
	return nil
}

// parseBias reads llama.cpp's --logit-bias TOKEN_ID(+/-)BIAS, and
// 'TEXT'+BIAS for a string whose tokens all get the bias. As llama.cpp
// reads it, the key ends at the first sign after it, so a bias may carry
// an exponent (15+1e-5).
func parseBias(specs []string) ([]sampler.Bias, error) {
	var out []sampler.Bias
	for _, s := range specs {
		b, err := parseOneBias(s)
		if err != nil {
			return nil, usagef("--logit-bias %q: %v", s, err)
		}
		out = append(out, b)
	}
	return out, nil
}

func parseOneBias(s string) (sampler.Bias, error) {
	var key string
	rest := s
	if strings.HasPrefix(s, "'") {
		end := strings.Index(s[1:], "'")
		if end < 0 {
			return sampler.Bias{}, errors.New("the quoted text does not end")
		}
		key, rest = s[1:end+1], s[end+2:]
	} else {
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		key, rest = s[:n], s[n:]
	}
	if key == "" || rest == "" || (rest[0] != '+' && rest[0] != '-') {
		return sampler.Bias{}, errors.New("want ID+BIAS, ID-BIAS or 'TEXT'+BIAS")
	}
	v, err := strconv.ParseFloat(rest, 32)
	if err != nil {
		return sampler.Bias{}, fmt.Errorf("bad bias %q", rest)
	}
	if strings.HasPrefix(s, "'") {
		return sampler.Bias{Token: -1, Text: key, Value: float32(v)}, nil
	}
	id, err := strconv.ParseInt(key, 10, 32)
	if err != nil {
		return sampler.Bias{}, fmt.Errorf("%q is not a token id", key)
	}
	return sampler.Bias{Token: int32(id), Value: float32(v)}, nil
}

// resolveSampling layers llama.cpp's defaults, the model's
// general.sampling.* keys and the overrides.
func resolveSampling(m *llama.Model, o sampler.Overrides) (sampler.Config, error) {
	cfg, err := sampler.Resolve(engine.SamplingMeta(m), o)
	if err != nil {
		return cfg, fmt.Errorf("sampling: %w", err)
	}
	return cfg, nil
}
