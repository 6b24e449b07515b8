package sampler

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind names one sampler of llama.cpp's chain, spelled as llama.cpp's
// common_sampler_type_to_str spells it.
type Kind string

// The samplers of llama.cpp's chain, with the names that --samplers and the
// GGUF key general.sampling.sequence use.
const (
	KindPenalties   Kind = "penalties"   // repeat, frequency and presence penalties
	KindDRY         Kind = "dry"         // "don't repeat yourself" sequence penalty
	KindTopNSigma   Kind = "top_n_sigma" // keep logits within n standard deviations of the max
	KindTopK        Kind = "top_k"       // keep the k highest logits
	KindTypicalP    Kind = "typ_p"       // locally typical sampling
	KindTopP        Kind = "top_p"       // nucleus sampling
	KindMinP        Kind = "min_p"       // keep p_i >= min_p * p_max
	KindXTC         Kind = "xtc"         // exclude top choices, at random
	KindTemperature Kind = "temperature" // temperature, with optional dynamic range
	KindInfill      Kind = "infill"      // fill-in-the-middle token merging; needs a vocabulary
)

// letters maps the one-letter form of --sampling-seq to each Kind, as
// llama.cpp's common_sampler_type_to_chr does.
var letters = map[byte]Kind{
	'e': KindPenalties,
	'd': KindDRY,
	's': KindTopNSigma,
	'k': KindTopK,
	'y': KindTypicalP,
	'p': KindTopP,
	'm': KindMinP,
	'x': KindXTC,
	't': KindTemperature,
	'i': KindInfill,
}

// aliases are the alternative names llama.cpp accepts besides the canonical
// ones (common_sampler_types_from_names with allow_alt_names).
var aliases = map[string]Kind{
	"top-k":       KindTopK,
	"top-p":       KindTopP,
	"top-n-sigma": KindTopNSigma,
	"nucleus":     KindTopP,
	"typical-p":   KindTypicalP,
	"typical":     KindTypicalP,
	"typ-p":       KindTypicalP,
	"typ":         KindTypicalP,
	"min-p":       KindMinP,
	"temp":        KindTemperature,
}

// DefaultOrder returns llama.cpp's default sampler chain: penalties, dry,
// top_n_sigma, top_k, typ_p, top_p, min_p, xtc, temperature.
func DefaultOrder() []Kind {
	return []Kind{
		KindPenalties, KindDRY, KindTopNSigma, KindTopK, KindTypicalP,
		KindTopP, KindMinP, KindXTC, KindTemperature,
	}
}

// Known reports whether k is one of llama.cpp's samplers.
func (k Kind) Known() bool {
	for _, l := range letters {
		if l == k {
			return true
		}
	}
	return false
}

// ParseOrder parses llama.cpp's --samplers value: sampler names separated
// by semicolons, such as "penalties;dry;top_k;temperature". It accepts the
// canonical names and llama.cpp's aliases (top-k, top-p, nucleus, typical,
// typ, min-p, temp, ...); names are case-sensitive, as in llama.cpp. Empty
// names (as in "top_k;;temp" or a trailing ";") are skipped, as llama.cpp
// ends up skipping them. Where llama.cpp drops an unknown name with a
// warning, ParseOrder returns an error that names every unknown one.
// An empty s gives an empty chain: plain softmax sampling.
func ParseOrder(s string) ([]Kind, error) {
	order := []Kind{}
	var unknown []string
	for _, name := range strings.Split(s, ";") {
		if name == "" {
			continue
		}
		k := Kind(name)
		if a, ok := aliases[name]; ok {
			k = a
		}
		if !k.Known() {
			unknown = append(unknown, strconv.Quote(name))
			continue
		}
		order = append(order, k)
	}
	if unknown != nil {
		return nil, &Error{Op: "parse samplers", Subject: strconv.Quote(s),
			Err: fmt.Errorf("%w %s", ErrUnknownSampler, strings.Join(unknown, ", "))}
	}
	return order, nil
}

// ParseSequence parses the one-letter form of llama.cpp's --sampling-seq,
// such as "edskypmxt" for the default order. The letters are e (penalties),
// d (dry), s (top_n_sigma), k (top_k), y (typ_p), p (top_p), m (min_p),
// x (xtc), t (temperature) and i (infill). Unknown letters are an error
// that names them.
func ParseSequence(s string) ([]Kind, error) {
	order := make([]Kind, 0, len(s))
	var unknown []string
	for _, r := range s {
		k, ok := letters[byte(r)]
		if !ok || r >= 0x80 {
			unknown = append(unknown, strconv.QuoteRune(r))
			continue
		}
		order = append(order, k)
	}
	if unknown != nil {
		return nil, &Error{Op: "parse sampling-seq", Subject: strconv.Quote(s),
			Err: fmt.Errorf("%w %s", ErrUnknownSampler, strings.Join(unknown, ", "))}
	}
	return order, nil
}

// FormatOrder writes order in the --samplers form that ParseOrder reads.
func FormatOrder(order []Kind) string {
	names := make([]string, len(order))
	for i, k := range order {
		names[i] = string(k)
	}
	return strings.Join(names, ";")
}
