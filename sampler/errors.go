package sampler

import "errors"

// Error records a failed operation and the thing it was about, like
// fs.PathError. Its message reads "op subject: err", for example
// `resolve general.sampling.top_k: bad value "abc": invalid syntax`.
type Error struct {
	// Op is the operation: "parse samplers", "parse sampling-seq",
	// "resolve", "preset", "resolve bias" or "validate".
	Op string
	// Subject is what the operation was about: a GGUF key, a preset name,
	// a Config field, or a quoted --samplers value.
	Subject string
	// Err is the cause. It wraps one of the sentinels below where one fits.
	Err error
}

func (e *Error) Error() string {
	if e.Subject == "" {
		return e.Op + ": " + e.Err.Error()
	}
	return e.Op + " " + e.Subject + ": " + e.Err.Error()
}

// Unwrap returns the cause, so errors.Is finds the sentinels.
func (e *Error) Unwrap() error { return e.Err }

var (
	// ErrUnknownSampler reports a sampler name or letter that llama.cpp
	// does not know.
	ErrUnknownSampler = errors.New("unknown sampler")
	// ErrBadValue reports a GGUF general.sampling.* value or a Config field
	// that cannot be used.
	ErrBadValue = errors.New("bad value")
	// ErrUnknownPreset reports a preset name that Preset does not know.
	ErrUnknownPreset = errors.New("unknown preset")
	// ErrNoTokenizer reports a text logit bias with no tokenizer to
	// resolve it.
	ErrNoTokenizer = errors.New("text bias needs a tokenizer")
)
