package llama

import (
	"errors"
	"fmt"
)

// Sentinel errors. Errors returned by this package wrap them in an *Error, so
// test with errors.Is.
var (
	// ErrClosed is returned by a method called on a closed handle.
	ErrClosed = errors.New("handle is closed")
	// ErrContextFull means the KV cache has no room for the tokens
	// (llama_decode returned 1) or a prompt is longer than the context.
	ErrContextFull = errors.New("context is full")
	// ErrGrammar is returned when a grammar does not parse or rejects a token.
	ErrGrammar = errors.New("grammar error")
	// ErrNotGGUF is returned for a file that is not a readable GGUF file.
	ErrNotGGUF = errors.New("not a GGUF file")
	// ErrInvalidArgument is returned for arguments llama.cpp would reject or
	// abort on, such as an out-of-range sequence id or an oversized batch.
	ErrInvalidArgument = errors.New("invalid argument")
)

// Error records a failed operation, the thing it acted on, and the cause,
// in the manner of fs.PathError. Its message reads
// "load model: testdata/x.gguf: not a GGUF file (magic "PK\x03\x04")".
type Error struct {
	Op      string // the operation: "load model", "decode", "tokenize", ...
	Subject string // the file, sequence or sampler it acted on; may be empty
	Err     error  // the cause
}

func (e *Error) Error() string {
	if e.Subject == "" {
		return e.Op + ": " + e.Err.Error()
	}
	return e.Op + ": " + e.Subject + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func newError(op, subject string, err error) *Error {
	return &Error{Op: op, Subject: subject, Err: err}
}

// detail wraps a sentinel with extra text while keeping errors.Is working.
func detail(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w (%s)", sentinel, fmt.Sprintf(format, args...))
}
