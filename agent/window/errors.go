package window

import (
	"errors"

	"github.com/loopagent/loop/agent/chat"
)

// ErrContextFull is returned when a request does not fit in the window
// even after compaction and a hard reset: the task and summary alone, or
// the fixed parts, are too big. The engine never truncates silently; this
// is the typed overflow the agent reports.
var ErrContextFull = errors.New("context window full")

// ErrSummary wraps a summarizer's failure.
var ErrSummary = errors.New("summarizer failed")

// Error records a failed operation of the manager and why:
// "add: message 7: orphan result c2". It is chat.Error, whose Op here is
// "add", "request" or "compact" and whose Subject is the message or the
// sizes (may be empty).
type Error = chat.Error
