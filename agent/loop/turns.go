package loop

import (
	"context"
	"errors"
	"fmt"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/transcript"
)

// rejected keeps a bad reply in the history with what goes back to the
// model, then sends it back while the retry guard's budget lasts, or ends
// the run. A call that parsed but failed validation enters the history
// with its error as its result, so that the model sees what to correct; a
// reply that could not be read (cut off, broken JSON, outside the format)
// is logged, not stored (a cut-off reply can be hundreds of tokens of
// nothing): only the note of what went wrong goes back.
func (a *Agent) rejected(t turn) (Outcome, bool) {
	msg := t.errorFor()
	a.emit(transcript.Event{Kind: transcript.KindRejected, Reason: t.bad, Text: msg})
	from := a.window.Len()
	if t.toolErrs != nil {
		// The calls parsed: each gets a result, the error for the bad
		// ones, so that every call keeps its result.
		a.add(assistantMessage(t, t.calls))
		for i, c := range t.calls {
			text, bad := t.toolErrs[i]
			if !bad {
				text = "Not run: another call of this reply was invalid. Send the corrected calls again."
			}
			a.add(chat.Message{Role: "tool", ToolCallID: c.ID, Name: c.Function.Name, Content: text})
		}
	} else {
		a.add(chat.Message{Role: "user", Content: msg})
	}
	for i := from; i < a.window.Len(); i++ {
		a.pending = append(a.pending, i)
	}
	r := a.guards.retry
	if r == nil || a.retries >= r.budget {
		return a.end(BadReply, t.bad, nil), true
	}
	a.retries++
	a.out.Retries++
	if t.bad == badCutOff {
		a.maxTokens = a.cfg.grownBudget(a.sent)
	}
	return Outcome{}, false
}

// assistantMessage is the reply as the history keeps it: its content,
// reasoning and the given calls.
func assistantMessage(t turn, calls []chat.ToolCall) chat.Message {
	m := chat.Message{Role: "assistant", Content: t.parsed.Content, ReasoningContent: t.parsed.Reasoning, ToolCalls: calls}
	if m.Content == "" && len(calls) > 0 {
		m.NullContent = true
	}
	return m
}

// accept saves a usable reply.
func (a *Agent) accept(t turn) {
	a.add(assistantMessage(t, t.calls))
}

// answer judges a reply without calls, a final answer: the answer guards
// may send the model back to work with a note; else the run ends, and
// the outcome says what the gate saw.
func (a *Agent) answer(t turn) (Outcome, bool) {
	a.out.Answer = t.parsed.Content
	a.retries = 0
	for _, g := range a.guards.answer {
		note, next, end := g.judge(a)
		if end != nil {
			return *end, true
		}
		if note != "" {
			a.add(chat.Message{Role: "user", Content: note})
			a.emit(transcript.Event{Kind: transcript.KindNote, Text: note})
			if a.guards.force != nil {
				a.guards.force.next = next
			}
			return Outcome{}, false
		}
	}
	switch {
	case a.gate.Edited():
		return a.end(Unverified, "no passing "+a.checkName()+" after the last edit", nil), true
	case a.gate.Verified():
		return a.end(Verified, "", nil), true
	case a.gate.Failing():
		return a.end(Done, "the last "+a.checkName()+" failed", nil), true
	}
	return a.end(Done, "", nil), true
}

func (a *Agent) checkName() string {
	if a.gate.Check != "" {
		return a.gate.Check
	}
	return "check"
}

// failed ends the run on an error of the model call: cancelled when the
// context was, else a failure of the harness.
func (a *Agent) failed(ctx context.Context, err error) Outcome {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return a.end(Cancelled, "", err)
	}
	return a.end(Failed, "", err)
}

// prune removes the failed attempts and their errors once a corrected
// call has run, when the retry guard prunes. They are the messages added
// by the bad replies in a row before it, one run of indices.
func (a *Agent) prune() {
	pending := a.pending
	a.pending = nil
	if r := a.guards.retry; r == nil || !r.prune || len(pending) == 0 {
		return
	}
	if err := a.window.Remove(pending[0], pending[len(pending)-1]+1); err != nil && a.broken == nil {
		a.broken = fmt.Errorf("pruning failed attempts: %w", err)
	}
}
