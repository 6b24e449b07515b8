package sampler

import (
	"slices"
	"strconv"
)

// Preset names.
const (
	// PresetToolCall is for steps where the model writes a tool call.
	PresetToolCall = "tool-call"
	// PresetProse is for steps where the model writes text for the user.
	PresetProse = "prose"
)

// presets builds each preset afresh, so callers cannot change another's.
var presets = map[string]func() Overrides{
	PresetToolCall: toolCall,
	PresetProse:    prose,
}

// toolCall keeps a tool call on the most likely path. Every token of a call
// must be right, and per-token errors compound over its length (in
// WriteExplain's first table, at temperature 1.0 the right tool name has
// probability 0.655 and five such decisions all go right 12% of the time;
// at 0.2 it is 0.9994 and 99.7%). So:
//   - Temperature 0.2 sharpens the choice without the exact repetition of
//     greedy decoding after a failed call.
//   - MinP 0.05 removes the long tail of unrelated tokens, scaled to the
//     model's confidence.
//   - RepeatPenalty 1 and no frequency or presence penalty: JSON repeats
//     ", :, { and , constantly, and a penalty of 1.5 lowers " from 0.82 to
//     0.63 (WriteExplain's second table).
//   - DRY off for the same reason: argument values legitimately repeat
//     earlier text (paths, names).
//   - XTC off: it removes the most likely tokens on purpose. A model's GGUF
//     may turn it on (general.sampling.xtc_probability).
//   - Mirostat off, so the chain above runs even if the GGUF asks for it.
func toolCall() Overrides {
	return Overrides{
		Temperature:      Ptr[float32](0.2),
		MinP:             Ptr[float32](0.05),
		RepeatPenalty:    Ptr[float32](1.0),
		FrequencyPenalty: Ptr[float32](0),
		PresencePenalty:  Ptr[float32](0),
		DRYMultiplier:    Ptr[float32](0),
		XTCProbability:   Ptr[float32](0),
		Mirostat:         Ptr(0),
	}
}

// prose is for text answers, where variety does no harm and loops do:
//   - Temperature 0.7, TopP 0.95, MinP 0.05: a little below llama.cpp's
//     0.8 default, with its usual tail cut.
//   - DRY at its usual strength (multiplier 0.8, base 1.75, allowed length
//     2) instead of a repeat penalty. The failure to prevent is a small
//     model looping over a sentence or paragraph. DRY penalizes only
//     tokens that extend a repeated sequence longer than two tokens, and
//     its breakers ("\n", ":", "\"", "*") end sequences at lines, keys and
//     quotes; a repeat penalty instead lowers every recent token, including
//     the punctuation, quotes and code that answers about code repeat.
//   - RepeatPenalty 1, in case the model's GGUF sets one.
//
// Distribution does not model DRY, so for it prose is temperature 0.7 with
// top_p and min_p.
func prose() Overrides {
	return Overrides{
		Temperature:      Ptr[float32](0.7),
		TopP:             Ptr[float32](0.95),
		MinP:             Ptr[float32](0.05),
		RepeatPenalty:    Ptr[float32](1.0),
		DRYMultiplier:    Ptr[float32](0.8),
		DRYBase:          Ptr[float32](1.75),
		DRYAllowedLength: Ptr(2),
	}
}

// Preset returns the named preset's settings, to layer between a model's
// GGUF recommendations and the user's flags:
//
//	p, err := sampler.Preset(sampler.PresetToolCall)
//	cfg, err := sampler.Resolve(meta, p.Merge(flags))
//
// The agent picks the preset per step: PresetToolCall when the step is
// expected to produce a tool call (or runs under a tool-call grammar),
// PresetProse for a text answer to the user. A preset overrides the GGUF
// values it sets; the user's flags override the preset.
func Preset(name string) (Overrides, error) {
	f, ok := presets[name]
	if !ok {
		return Overrides{}, &Error{Op: "preset", Subject: strconv.Quote(name), Err: ErrUnknownPreset}
	}
	return f(), nil
}

// PresetNames returns the names Preset accepts, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(presets))
	for n := range presets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
