// Package sampler describes and explains llama.cpp's token sampling in pure
// Go: its settings, where they come from, and the probability math of its
// deterministic samplers. It draws no tokens itself: llama.cpp's samplers
// do that, set up from a Config built here.
//
// # Settings in three layers
//
// A Config holds llama.cpp's sampling parameters (common_params_sampling).
// Defaults returns llama.cpp's defaults. Resolve builds a Config the way
// llama.cpp's common layer does, lowest layer first:
//
//  1. llama.cpp's defaults (temperature 0.8, top_k 40, top_p 0.95,
//     min_p 0.05, repeat penalty 1.0, ...);
//  2. the model's recommendations, from its GGUF general.sampling.* keys;
//  3. explicit settings, as Overrides, whose nil fields are not set.
//
// Presets and user flags are both Overrides; Merge stacks them, the
// argument winning:
//
//	preset, err := sampler.Preset(sampler.PresetToolCall)
//	if err != nil { ... }
//	flags := sampler.Overrides{TopK: sampler.Ptr(20)} // from --top-k 20
//	cfg, err := sampler.Resolve(ggufMeta, preset.Merge(flags))
//
// The agent picks the preset per step: PresetToolCall (low temperature, no
// repeat penalty) for steps that write a tool call, PresetProse for text
// answers.
//
// # The chain
//
// Config.Order is the sampler chain, as llama.cpp's --samplers sets it.
// ParseOrder reads that flag's form ("penalties;top_k;temp", with
// llama.cpp's aliases), ParseSequence the one-letter --sampling-seq form
// ("ekt"), and DefaultOrder is llama.cpp's: penalties, dry, top_n_sigma,
// top_k, typ_p, top_p, min_p, xtc, temperature. After the chain,
// llama.cpp's dist sampler draws a token from the softmax of what is left.
//
// # The math
//
// Each deterministic sampler has a function over []Candidate that mirrors
// its llama.cpp apply function, min_keep and edge cases included: TopK,
// TopP, MinP, Typical, TopNSigma, Temperature, TempExt, Penalties,
// LogitBias and Softmax. The filters work in place and return what
// remains. Distribution runs a whole Config over a row of logits and
// returns the probabilities llama.cpp would draw from, skipping the
// samplers that are random or need the vocabulary (xtc, dry, infill). The
// math is float64 where llama.cpp's is float32, so probabilities agree
// within about 1e-6.
//
// WriteExplain prints two tables, computed with these functions, of how
// temperature, min_p and a repeat penalty change the odds of a correct
// tool call. Their figures come from the project's specification
// (../shared/seeds); the tests compare with them digit for digit.
package sampler
