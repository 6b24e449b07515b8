package mcp

import "errors"

// Error is a failure of the harness around a server: a config file that
// does not parse, a server that does not start or dies while it starts.
// A call that fails is a result the model reads, never an Error.
type Error struct {
	Op      string // "parse config", "start server", "list tools", ...
	Subject string // the config file or the server's name
	Err     error
}

func (e *Error) Error() string {
	if e.Subject == "" {
		return "mcp: " + e.Op + ": " + e.Err.Error()
	}
	return "mcp: " + e.Op + " " + e.Subject + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Sentinels that an *Error wraps.
var (
	// ErrExited is a server that exited before it answered.
	ErrExited = errors.New("the server exited")
	// ErrTimeout is a server that did not answer in time.
	ErrTimeout = errors.New("no answer in time")
	// ErrConfig is a config file whose content loop cannot use: a server
	// without a command, a bad name, an unset variable.
	ErrConfig = errors.New("bad config")
)
