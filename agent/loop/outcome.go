package loop

import (
	"fmt"
	"strings"
	"time"
)

// Kind says how a run ended.
type Kind string

// The outcomes of a run. Each has its own exit code in `loop run`.
const (
	// Verified: the model answered after a check passed on its changes.
	Verified Kind = "done (verified)"
	// Done: the model answered without changing anything. Reason says
	// when the last check it ran failed.
	Done Kind = "done"
	// Unverified: the model answered after changing files without a
	// passing check since (asked once, when the gate is on).
	Unverified Kind = "unverified"
	// StepLimit: MaxSteps requests went by without an answer.
	StepLimit Kind = "step limit"
	// LoopStop: the model kept repeating itself after a warning.
	LoopStop Kind = "loop stop"
	// BadReply: the model's replies stayed unusable after the retries;
	// Reason says how (json, args, tool, cut off, format).
	BadReply Kind = "bad reply"
	// Cancelled: the context was cancelled (Ctrl-C) or timed out.
	Cancelled Kind = "cancelled"
	// Failed: the harness failed; Err says why.
	Failed Kind = "error"
)

// ExitCode is the process exit status `loop run` uses for the outcome.
func (k Kind) ExitCode() int {
	switch k {
	case Verified, Done:
		return 0
	case Unverified:
		return 3
	case StepLimit:
		return 4
	case LoopStop:
		return 5
	case BadReply:
		return 6
	case Cancelled:
		return 130
	}
	return 1
}

// Outcome is how a run ended, with its statistics.
type Outcome struct {
	Kind   Kind
	Reason string // the bad reply's reason, or more about the outcome
	Answer string // the final answer's text
	Err    error  // for Failed and Cancelled

	Requests         int           // model requests
	Calls            int           // calls executed
	Repairs          int           // calls repaired or recovered
	Retries          int           // bad replies sent back
	Compactions      int           // compactions of the history
	PromptTokens     int           // prompt tokens of every request
	PromptN          int           // prompt tokens computed (after cache reuse)
	CacheN           int           // prompt tokens taken from the cache
	CompletionTokens int           // tokens generated
	ModelTime        time.Duration // the model requests, whole
	AgentTime        time.Duration // the harness's own work (transcript.StepTiming.AgentMs)
	Wall             time.Duration
	Classes          map[string]int // steps per failure class
}

// String is the outcome line: what happened, then the figures.
func (o Outcome) String() string {
	var b strings.Builder
	b.WriteString(string(o.Kind))
	if o.Reason != "" {
		fmt.Fprintf(&b, " (%s)", o.Reason)
	}
	fmt.Fprintf(&b, ": %d requests, %d calls", o.Requests, o.Calls)
	if o.Repairs > 0 || o.Retries > 0 {
		fmt.Fprintf(&b, ", %d repaired, %d retried", o.Repairs, o.Retries)
	}
	if o.Compactions > 0 {
		fmt.Fprintf(&b, ", %d compacted", o.Compactions)
	}
	fmt.Fprintf(&b, ", %d prompt tokens (%d computed, %d cached), %d generated, %s",
		o.PromptTokens, o.PromptN, o.CacheN, o.CompletionTokens, o.Wall.Round(time.Millisecond))
	if o.Err != nil && o.Kind == Failed {
		fmt.Fprintf(&b, ": %v", o.Err)
	}
	return b.String()
}
