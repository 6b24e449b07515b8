package sampler

import (
	"fmt"
	"slices"
	"strconv"
)

// RandomSeed is the Seed value that asks for a random seed, as
// LLAMA_DEFAULT_SEED does in llama.cpp.
const RandomSeed uint32 = 0xFFFFFFFF

// Config holds llama.cpp's sampling parameters (common_params_sampling).
// Its zero value is not llama.cpp's default: it is greedy decoding with
// every filter off. Start from Defaults, or build one with Resolve, whose
// Overrides{} zero value does mean "llama.cpp's defaults". Float fields are
// float32, as in llama.cpp, so that 0.95 here is the same number as 0.95f
// there.
type Config struct {
	// Seed seeds the random samplers (dist, xtc, mirostat). RandomSeed
	// (0xFFFFFFFF) picks a random seed. Default RandomSeed.
	Seed uint32
	// Temperature divides the logits before the final softmax. Values <= 0
	// keep only the highest logit, which is greedy decoding. Default 0.8.
	Temperature float32
	// DynatempRange, when > 0, makes the temperature dynamic: it varies in
	// [Temperature-DynatempRange, Temperature+DynatempRange] with the
	// entropy of the candidates. 0 disables it. Default 0.
	DynatempRange float32
	// DynatempExponent shapes how entropy maps to the dynamic temperature.
	// Default 1.
	DynatempExponent float32
	// TopK keeps the TopK highest logits; <= 0 keeps all. Default 40.
	TopK int
	// TopP keeps the smallest set of most likely tokens whose probabilities
	// sum to at least TopP; 1 disables it. Default 0.95.
	TopP float32
	// MinP keeps tokens whose probability is at least MinP times the top
	// token's; 0 disables it. Default 0.05.
	MinP float32
	// TypicalP is locally typical sampling's mass; 1 disables it. Default 1.
	TypicalP float32
	// TopNSigma keeps logits within TopNSigma standard deviations of the
	// highest one; <= 0 disables it. Default -1.
	TopNSigma float32
	// XTCProbability is the chance that XTC removes the top choices; 0
	// disables it. Default 0.
	XTCProbability float32
	// XTCThreshold is the probability a token needs for XTC to count it as
	// a top choice; above 0.5 disables XTC. Default 0.1.
	XTCThreshold float32
	// DRYMultiplier scales the DRY penalty for tokens that extend a
	// repeated sequence; 0 disables DRY. Default 0.
	DRYMultiplier float32
	// DRYBase is the base of DRY's exponential penalty. Default 1.75.
	DRYBase float32
	// DRYAllowedLength is the longest repetition DRY leaves alone.
	// Default 2.
	DRYAllowedLength int
	// DRYLastN is how many tokens DRY scans; 0 disables it and -1 means the
	// context size. Default -1.
	DRYLastN int
	// DRYBreakers are strings that end a repeated sequence for DRY.
	// Default "\n", ":", "\"", "*".
	DRYBreakers []string
	// RepeatPenalty divides the positive logits and multiplies the negative
	// logits of tokens seen in the last PenaltyLastN tokens; 1 disables it.
	// Default 1.
	RepeatPenalty float32
	// FrequencyPenalty is subtracted from a seen token's logit once per
	// occurrence; 0 disables it. Default 0.
	FrequencyPenalty float32
	// PresencePenalty is subtracted once from a seen token's logit; 0
	// disables it. Default 0.
	PresencePenalty float32
	// PenaltyLastN is how many recent tokens the penalties look at; 0
	// disables them and -1 means the context size (all of the history given
	// to Distribution). Default 64.
	PenaltyLastN int
	// Mirostat selects Mirostat sampling: 0 off, 1 Mirostat, 2 Mirostat
	// 2.0. When on, llama.cpp replaces the whole chain with temperature and
	// Mirostat. Default 0.
	Mirostat int
	// MirostatTau is Mirostat's target entropy. Default 5.
	MirostatTau float32
	// MirostatEta is Mirostat's learning rate. Default 0.1.
	MirostatEta float32
	// MinKeep is the fewest tokens top_p, min_p, typ_p and xtc leave; 0
	// means no minimum beyond one token. Default 0.
	MinKeep int
	// LogitBias adds values to chosen tokens' logits before the chain
	// runs; a Value of -Inf bans the token. Default none.
	LogitBias []Bias
	// Order is the sampler chain, run first to last. Default DefaultOrder.
	Order []Kind
	// Greedy selects the most likely token after the chain instead of
	// sampling (llama.cpp's greedy sampler in place of dist). llama.cpp
	// also decodes greedily when Temperature <= 0, because the temperature
	// sampler then leaves only the top token. Default false.
	Greedy bool
}

// Bias is one logit bias entry.
type Bias struct {
	// Token is the token id to bias; it is ignored when Text is set.
	Token int32
	// Text, when not empty, biases every token of this string instead of
	// Token. Only a caller with a tokenizer can resolve it: see
	// Config.ResolveBias.
	Text string
	// Value is added to the logit. -Inf bans the token.
	Value float32
}

// Defaults returns llama.cpp's defaults (common_params_sampling in
// common/common.h).
func Defaults() Config {
	return Config{
		Seed:             RandomSeed,
		Temperature:      0.80,
		DynatempRange:    0.00,
		DynatempExponent: 1.00,
		TopK:             40,
		TopP:             0.95,
		MinP:             0.05,
		TypicalP:         1.00,
		TopNSigma:        -1.00,
		XTCProbability:   0.00,
		XTCThreshold:     0.10,
		DRYMultiplier:    0.0,
		DRYBase:          1.75,
		DRYAllowedLength: 2,
		DRYLastN:         -1,
		DRYBreakers:      []string{"\n", ":", "\"", "*"},
		RepeatPenalty:    1.00,
		FrequencyPenalty: 0.00,
		PresencePenalty:  0.00,
		PenaltyLastN:     64,
		Mirostat:         0,
		MirostatTau:      5.00,
		MirostatEta:      0.10,
		MinKeep:          0,
		Order:            DefaultOrder(),
	}
}

// ResolveBias turns c.LogitBias into one bias per token id. An entry with
// Text is tokenized with tokenize and biases each distinct token of the
// text once. Entries for the same token add up, as llama.cpp's logit_bias
// sampler adds them. tokenize may be nil when no entry has Text.
func (c Config) ResolveBias(tokenize func(string) ([]int32, error)) (map[int32]float32, error) {
	out := make(map[int32]float32)
	for _, b := range c.LogitBias {
		if b.Text == "" {
			out[b.Token] += b.Value
			continue
		}
		if tokenize == nil {
			return nil, &Error{Op: "resolve bias", Subject: strconv.Quote(b.Text), Err: ErrNoTokenizer}
		}
		ids, err := tokenize(b.Text)
		if err != nil {
			return nil, &Error{Op: "resolve bias", Subject: strconv.Quote(b.Text), Err: err}
		}
		ids = slices.Clone(ids)
		slices.Sort(ids)
		for _, id := range slices.Compact(ids) {
			out[id] += b.Value
		}
	}
	return out, nil
}

// Validate reports a Config that llama.cpp would reject or abort on: a
// Mirostat other than 0, 1 or 2, a negative MinKeep, or an unknown Kind in
// Order.
func (c Config) Validate() error {
	if c.Mirostat < 0 || c.Mirostat > 2 {
		return &Error{Op: "validate", Subject: "Mirostat",
			Err: fmt.Errorf("%w %d: want 0, 1 or 2", ErrBadValue, c.Mirostat)}
	}
	if c.MinKeep < 0 {
		return &Error{Op: "validate", Subject: "MinKeep",
			Err: fmt.Errorf("%w %d: want >= 0", ErrBadValue, c.MinKeep)}
	}
	for _, k := range c.Order {
		if !k.Known() {
			return &Error{Op: "validate", Subject: "Order",
				Err: fmt.Errorf("%w %q", ErrUnknownSampler, string(k))}
		}
	}
	return nil
}
