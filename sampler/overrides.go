package sampler

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Overrides holds sampling settings that were set explicitly, by a preset
// or by the user; a nil field is not set. Its zero value sets nothing, so
// Resolve(nil, Overrides{}) returns Defaults(). Each field overrides the
// Config field of the same name.
type Overrides struct {
	// Seed overrides Config.Seed.
	Seed *uint32
	// Temperature overrides Config.Temperature.
	Temperature *float32
	// DynatempRange overrides Config.DynatempRange.
	DynatempRange *float32
	// DynatempExponent overrides Config.DynatempExponent.
	DynatempExponent *float32
	// TopK overrides Config.TopK.
	TopK *int
	// TopP overrides Config.TopP.
	TopP *float32
	// MinP overrides Config.MinP.
	MinP *float32
	// TypicalP overrides Config.TypicalP.
	TypicalP *float32
	// TopNSigma overrides Config.TopNSigma.
	TopNSigma *float32
	// XTCProbability overrides Config.XTCProbability.
	XTCProbability *float32
	// XTCThreshold overrides Config.XTCThreshold.
	XTCThreshold *float32
	// DRYMultiplier overrides Config.DRYMultiplier.
	DRYMultiplier *float32
	// DRYBase overrides Config.DRYBase.
	DRYBase *float32
	// DRYAllowedLength overrides Config.DRYAllowedLength.
	DRYAllowedLength *int
	// DRYLastN overrides Config.DRYLastN.
	DRYLastN *int
	// DRYBreakers overrides Config.DRYBreakers; a pointer to an empty
	// slice sets no breakers.
	DRYBreakers *[]string
	// RepeatPenalty overrides Config.RepeatPenalty.
	RepeatPenalty *float32
	// FrequencyPenalty overrides Config.FrequencyPenalty.
	FrequencyPenalty *float32
	// PresencePenalty overrides Config.PresencePenalty.
	PresencePenalty *float32
	// PenaltyLastN overrides Config.PenaltyLastN.
	PenaltyLastN *int
	// Mirostat overrides Config.Mirostat.
	Mirostat *int
	// MirostatTau overrides Config.MirostatTau.
	MirostatTau *float32
	// MirostatEta overrides Config.MirostatEta.
	MirostatEta *float32
	// MinKeep overrides Config.MinKeep.
	MinKeep *int
	// LogitBias overrides Config.LogitBias as a whole.
	LogitBias *[]Bias
	// Order overrides Config.Order; a pointer to an empty slice is an
	// empty chain.
	Order *[]Kind
	// Greedy overrides Config.Greedy.
	Greedy *bool
}

// Ptr returns a pointer to v, for filling Overrides:
// Overrides{TopK: Ptr(20)}.
func Ptr[T any](v T) *T { return &v }

// pick returns b when it is set, else a.
func pick[T any](a, b *T) *T {
	if b != nil {
		return b
	}
	return a
}

// Merge returns o with every field that other sets replaced by other's, so
// that layers stack: preset.Merge(userFlags) lets the user's flags win.
func (o Overrides) Merge(other Overrides) Overrides {
	return Overrides{
		Seed:             pick(o.Seed, other.Seed),
		Temperature:      pick(o.Temperature, other.Temperature),
		DynatempRange:    pick(o.DynatempRange, other.DynatempRange),
		DynatempExponent: pick(o.DynatempExponent, other.DynatempExponent),
		TopK:             pick(o.TopK, other.TopK),
		TopP:             pick(o.TopP, other.TopP),
		MinP:             pick(o.MinP, other.MinP),
		TypicalP:         pick(o.TypicalP, other.TypicalP),
		TopNSigma:        pick(o.TopNSigma, other.TopNSigma),
		XTCProbability:   pick(o.XTCProbability, other.XTCProbability),
		XTCThreshold:     pick(o.XTCThreshold, other.XTCThreshold),
		DRYMultiplier:    pick(o.DRYMultiplier, other.DRYMultiplier),
		DRYBase:          pick(o.DRYBase, other.DRYBase),
		DRYAllowedLength: pick(o.DRYAllowedLength, other.DRYAllowedLength),
		DRYLastN:         pick(o.DRYLastN, other.DRYLastN),
		DRYBreakers:      pick(o.DRYBreakers, other.DRYBreakers),
		RepeatPenalty:    pick(o.RepeatPenalty, other.RepeatPenalty),
		FrequencyPenalty: pick(o.FrequencyPenalty, other.FrequencyPenalty),
		PresencePenalty:  pick(o.PresencePenalty, other.PresencePenalty),
		PenaltyLastN:     pick(o.PenaltyLastN, other.PenaltyLastN),
		Mirostat:         pick(o.Mirostat, other.Mirostat),
		MirostatTau:      pick(o.MirostatTau, other.MirostatTau),
		MirostatEta:      pick(o.MirostatEta, other.MirostatEta),
		MinKeep:          pick(o.MinKeep, other.MinKeep),
		LogitBias:        pick(o.LogitBias, other.LogitBias),
		Order:            pick(o.Order, other.Order),
		Greedy:           pick(o.Greedy, other.Greedy),
	}
}

// set copies v into *dst when v is set.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// apply writes every field that o sets into c. Slices are copied, so the
// Config does not share memory with the Overrides.
func (o Overrides) apply(c *Config) {
	set(&c.Seed, o.Seed)
	set(&c.Temperature, o.Temperature)
	set(&c.DynatempRange, o.DynatempRange)
	set(&c.DynatempExponent, o.DynatempExponent)
	set(&c.TopK, o.TopK)
	set(&c.TopP, o.TopP)
	set(&c.MinP, o.MinP)
	set(&c.TypicalP, o.TypicalP)
	set(&c.TopNSigma, o.TopNSigma)
	set(&c.XTCProbability, o.XTCProbability)
	set(&c.XTCThreshold, o.XTCThreshold)
	set(&c.DRYMultiplier, o.DRYMultiplier)
	set(&c.DRYBase, o.DRYBase)
	set(&c.DRYAllowedLength, o.DRYAllowedLength)
	set(&c.DRYLastN, o.DRYLastN)
	if o.DRYBreakers != nil {
		c.DRYBreakers = append([]string{}, *o.DRYBreakers...)
	}
	set(&c.RepeatPenalty, o.RepeatPenalty)
	set(&c.FrequencyPenalty, o.FrequencyPenalty)
	set(&c.PresencePenalty, o.PresencePenalty)
	set(&c.PenaltyLastN, o.PenaltyLastN)
	set(&c.Mirostat, o.Mirostat)
	set(&c.MirostatTau, o.MirostatTau)
	set(&c.MirostatEta, o.MirostatEta)
	set(&c.MinKeep, o.MinKeep)
	if o.LogitBias != nil {
		c.LogitBias = append([]Bias{}, *o.LogitBias...)
	}
	if o.Order != nil {
		c.Order = append([]Kind{}, *o.Order...)
	}
	set(&c.Greedy, o.Greedy)
}

// The GGUF keys through which a model file recommends sampling settings
// (llama_model_meta_key_str in llama.cpp).
const (
	KeySequence       = "general.sampling.sequence"
	KeyTopK           = "general.sampling.top_k"
	KeyTopP           = "general.sampling.top_p"
	KeyMinP           = "general.sampling.min_p"
	KeyXTCProbability = "general.sampling.xtc_probability"
	KeyXTCThreshold   = "general.sampling.xtc_threshold"
	KeyTemp           = "general.sampling.temp"
	KeyPenaltyLastN   = "general.sampling.penalty_last_n"
	KeyPenaltyRepeat  = "general.sampling.penalty_repeat"
	KeyMirostat       = "general.sampling.mirostat"
	KeyMirostatTau    = "general.sampling.mirostat_tau"
	KeyMirostatEta    = "general.sampling.mirostat_eta"
)

// Resolve builds a Config in three layers, as llama.cpp's common layer
// does: llama.cpp's defaults, then the model's GGUF general.sampling.*
// values in meta (keys as above, values as strings), then every field that
// o sets. A meta key whose field o sets is not read at all, as llama.cpp
// skips the GGUF value of a setting the user gave. Where llama.cpp ignores
// a malformed GGUF value, Resolve returns an error naming the key. Other
// keys in meta are ignored, so a model's whole metadata may be passed.
//
// To layer a preset under the user's flags, merge them first:
// Resolve(meta, preset.Merge(flags)).
func Resolve(meta map[string]string, o Overrides) (Config, error) {
	c := Defaults()
	if err := applyMeta(&c, meta, o); err != nil {
		return Config{}, err
	}
	o.apply(&c)
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// applyMeta reads the GGUF keys in meta that o does not override.
func applyMeta(c *Config, meta map[string]string, o Overrides) error {
	if v, ok := meta[KeySequence]; ok && o.Order == nil {
		order, err := ParseOrder(v)
		if err != nil {
			return &Error{Op: "resolve", Subject: KeySequence, Err: err.(*Error).Err}
		}
		c.Order = order
	}
	ints := []struct {
		key  string
		dst  *int
		over *int
	}{
		{KeyTopK, &c.TopK, o.TopK},
		{KeyPenaltyLastN, &c.PenaltyLastN, o.PenaltyLastN},
		{KeyMirostat, &c.Mirostat, o.Mirostat},
	}
	for _, f := range ints {
		if err := metaInt(meta, f.key, f.dst, f.over); err != nil {
			return err
		}
	}
	if v, ok := meta[KeyMirostat]; ok && o.Mirostat == nil && (c.Mirostat < 0 || c.Mirostat > 2) {
		return badValue(KeyMirostat, v, errors.New("want 0, 1 or 2"))
	}
	floats := []struct {
		key  string
		dst  *float32
		over *float32
	}{
		{KeyTopP, &c.TopP, o.TopP},
		{KeyMinP, &c.MinP, o.MinP},
		{KeyXTCProbability, &c.XTCProbability, o.XTCProbability},
		{KeyXTCThreshold, &c.XTCThreshold, o.XTCThreshold},
		{KeyTemp, &c.Temperature, o.Temperature},
		{KeyPenaltyRepeat, &c.RepeatPenalty, o.RepeatPenalty},
		{KeyMirostatTau, &c.MirostatTau, o.MirostatTau},
		{KeyMirostatEta, &c.MirostatEta, o.MirostatEta},
	}
	for _, f := range floats {
		if err := metaFloat(meta, f.key, f.dst, f.over); err != nil {
			return err
		}
	}
	return nil
}

// metaInt parses meta[key] into *dst as an int32, unless over is set or the
// key is absent.
func metaInt(meta map[string]string, key string, dst, over *int) error {
	v, ok := meta[key]
	if !ok || over != nil {
		return nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return badValue(key, v, err)
	}
	*dst = int(n)
	return nil
}

// metaFloat parses meta[key] into *dst as a float32, unless over is set or
// the key is absent. NaN is refused.
func metaFloat(meta map[string]string, key string, dst, over *float32) error {
	v, ok := meta[key]
	if !ok || over != nil {
		return nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 32)
	if err == nil && math.IsNaN(f) {
		err = errors.New("not a number")
	}
	if err != nil {
		return badValue(key, v, err)
	}
	*dst = float32(f)
	return nil
}

// badValue reports a GGUF value that does not parse, with strconv's reason
// without its repetition of the input.
func badValue(key, v string, err error) error {
	if ne, ok := err.(*strconv.NumError); ok {
		err = ne.Err
	}
	return &Error{Op: "resolve", Subject: key, Err: fmt.Errorf("%w %q: %v", ErrBadValue, v, err)}
}

// Unset returns o without the fields that meta's GGUF keys set, so that
// Resolve(meta, o.Unset(meta).Merge(user)) lets the model's own keys win
// over o and the user win over both: how a preset fills only what a model
// leaves to its caller.
func (o Overrides) Unset(meta map[string]string) Overrides {
	clear := map[string]func(){
		KeySequence:       func() { o.Order = nil },
		KeyTopK:           func() { o.TopK = nil },
		KeyTopP:           func() { o.TopP = nil },
		KeyMinP:           func() { o.MinP = nil },
		KeyXTCProbability: func() { o.XTCProbability = nil },
		KeyXTCThreshold:   func() { o.XTCThreshold = nil },
		KeyTemp:           func() { o.Temperature = nil },
		KeyPenaltyLastN:   func() { o.PenaltyLastN = nil },
		KeyPenaltyRepeat:  func() { o.RepeatPenalty = nil },
		KeyMirostat:       func() { o.Mirostat = nil },
		KeyMirostatTau:    func() { o.MirostatTau = nil },
		KeyMirostatEta:    func() { o.MirostatEta = nil },
	}
	for key := range meta {
		if f, ok := clear[key]; ok {
			f()
		}
	}
	return o
}
