package window

import "errors"

// ErrContextFull is returned when a request does not fit in the window
// even after compaction and a hard reset: the task and summary alone, or
// the fixed parts, are too big. The engine never truncates silently; this
// is the typed overflow the agent reports.
var ErrContextFull = errors.New("context window full")

// ErrSummary wraps a summarizer's failure.
var ErrSummary = errors.New("summarizer failed")

// Error records a failed operation of the manager and why, in the manner
// of fs.PathError: "add: message 7: orphan result c2".
type Error struct {
	Op      string // "add", "request", "compact"
	Subject string // the message, or the sizes; may be empty
	Err     error
}

func (e *Error) Error() string {
	if e.Subject == "" {
		return e.Op + ": " + e.Err.Error()
	}
	return e.Op + ": " + e.Subject + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }
