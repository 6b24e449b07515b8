package eval

import "errors"

// Error is a failure of the eval harness itself, shaped like fs.PathError:
// what it did, on what, and why. A scenario that fails is a Result, not
// an Error.
type Error struct {
	Op      string // "load suite", "parse config", "run", ...
	Subject string // the file, suite, scenario or configuration
	Err     error
}

func (e *Error) Error() string {
	if e.Subject == "" {
		return e.Op + ": " + e.Err.Error()
	}
	return e.Op + ": " + e.Subject + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Sentinels wrapped by an Error.
var (
	// ErrUnknown: no built-in suite or configuration has that name, and
	// no file or directory either.
	ErrUnknown = errors.New("no such built-in, file or directory")
	// ErrInvalid: a scenario, suite or configuration file does not say
	// what it must.
	ErrInvalid = errors.New("invalid")
	// ErrNoModel: a scenario has no scripted replies and the runner has
	// no live model.
	ErrNoModel = errors.New("no scripted replies and no live model (pass -m)")
)
