package window

import (
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/chat"
)

// PairError is a history whose tool calls and results do not pair up.
// Chat templates expect every result to follow the assistant message that
// made its call; an orphan result makes strict templates fail and shows
// the model an answer to a question it never asked. An orphan in the
// manager's history is a bug.
type PairError struct {
	// Index is the message where the break was found.
	Index int
	// Orphan is the call id of a result with no open call.
	Orphan string
	// Unanswered are the ids of calls with no result, sorted.
	Unanswered []string
	// Duplicate is a call id used twice.
	Duplicate string
}

func (e *PairError) Error() string {
	switch {
	case e.Orphan != "":
		return "orphan result " + e.Orphan
	case e.Duplicate != "":
		return "duplicate call id " + e.Duplicate
	}
	return "calls without results [" + strings.Join(e.Unanswered, ", ") + "]"
}

// ValidatePairs checks that every tool result answers a call of the
// assistant message before it, and that every call has its result before
// the next user or assistant message (or the end). It returns a
// *PairError, or nil.
func ValidatePairs(msgs []chat.Message) error {
	var p pairState
	for i, m := range msgs {
		if err := p.add(i, m); err != nil {
			return err
		}
	}
	return p.end(len(msgs))
}

// pairState is the calls still waiting for results. It lets the manager
// check each message as it is added.
type pairState struct {
	open []string
}

// add checks one message against the open calls.
func (p *pairState) add(i int, m chat.Message) error {
	switch m.Role {
	case "tool":
		k := slices.Index(p.open, m.ToolCallID)
		if k < 0 {
			return &PairError{Index: i, Orphan: orNone(m.ToolCallID)}
		}
		p.open = slices.Delete(p.open, k, k+1)
		return nil
	case "system":
		return nil
	}
	if err := p.end(i); err != nil {
		return err
	}
	for _, c := range m.ToolCalls {
		if slices.Contains(p.open, c.ID) {
			return &PairError{Index: i, Duplicate: orNone(c.ID)}
		}
		p.open = append(p.open, c.ID)
	}
	return nil
}

// end reports the calls still open at message i.
func (p *pairState) end(i int) error {
	if len(p.open) == 0 {
		return nil
	}
	ids := slices.Clone(p.open)
	slices.Sort(ids)
	return &PairError{Index: i, Unanswered: ids}
}

func orNone(id string) string {
	if id == "" {
		return `""`
	}
	return id
}

// CutAt says where a trimmed or compacted history may start.
type CutAt int

const (
	// AtUser cuts only at a user message, so that every kept turn is
	// whole from the request to its last result, and the history starts
	// with a user message as strict templates want. The default.
	AtUser CutAt = iota
	// AtAssistant also cuts at an assistant message (Pi's rule), for a
	// long turn with no user message to cut at. Never at a tool result.
	AtAssistant
)

// CanCut reports whether a history may start at m.
func (c CutAt) CanCut(m chat.Message) bool {
	return m.Role == "user" || (c == AtAssistant && m.Role == "assistant")
}
