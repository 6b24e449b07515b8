package loop

import (
	"context"
	"errors"
	"slices"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/gate"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/grammar"
)

// retry sends a bad reply back with its error, while the budget lasts, or
// ends the run. A call that parsed but failed validation enters the
// history with its error as its result, so that the model sees what to
// correct (seed 000 Example 5); Guards.PruneRetries takes them out again
// once a corrected call ran. A reply that could not be read (cut off,
// broken JSON, outside the format) is logged, not stored (seed 003: a
// cut-off reply can be hundreds of tokens of nothing): only the note of
// what went wrong goes back.
func (a *Agent) retry(t turn) (Outcome, bool) {
	msg := t.errorFor()
	a.emit(transcript.Event{Kind: transcript.KindRejected, Reason: t.bad, Text: msg})
	from := len(a.history)
	if t.toolErrs != nil {
		// The calls parsed: each gets a result, the error for the bad
		// ones, so that every call keeps its result.
		a.history = append(a.history, assistantMessage(t, t.calls))
		for i, c := range t.calls {
			text, bad := t.toolErrs[i]
			if !bad {
				text = "Not run: another call of this reply was invalid. Send the corrected calls again."
			}
			a.history = append(a.history, chat.Message{Role: "tool", ToolCallID: c.ID, Name: c.Function.Name, Content: text})
		}
	} else {
		a.history = append(a.history, chat.Message{Role: "user", Content: msg})
	}
	for i := from; i < len(a.history); i++ {
		a.pending = append(a.pending, i)
	}
	if a.retries >= a.cfg.Guards.retries() {
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
	a.history = append(a.history, assistantMessage(t, t.calls))
}

// answer judges a reply without calls: a final answer. After an edit with
// no passing check since, the gate asks once for the check and forces the
// next step to run a command; before any edit, on a task that asks for a
// change, it reminds the model of the change once.
func (a *Agent) answer(t turn) (Outcome, bool) {
	a.out.Answer = t.parsed.Content
	a.retries = 0
	if !a.cfg.Guards.NoGate {
		switch a.gate.Answer() {
		case gate.AskChange:
			note := a.gate.AskChangeText()
			a.history = append(a.history, chat.Message{Role: "user", Content: note})
			a.emit(transcript.Event{Kind: transcript.KindNote, Text: note})
			return Outcome{}, false
		case gate.Ask:
			note := a.gate.AskText()
			a.history = append(a.history, chat.Message{Role: "user", Content: note})
			a.emit(transcript.Event{Kind: transcript.KindNote, Text: note})
			if !a.cfg.Guards.NoForce {
				a.force = forceChoice{mode: grammar.ChoiceFunction, tool: "shell"}
			}
			return Outcome{}, false
		case gate.Unverified:
			return a.end(Unverified, "answered again without running "+a.checkName(), nil), true
		}
	}
	switch {
	case a.gate.Edited():
		return a.end(Unverified, "no passing "+a.checkName()+" after the last edit", nil), true
	case a.gate.Verified():
		return a.end(Verified, "", nil), true
	case a.gate.Failing():
		return a.end(Done, "the last "+a.checkName()+" failed", nil), true
	case a.gate.Unchanged() && !a.cfg.Guards.NoGate:
		return a.end(Done, "the task asks for a change and nothing was edited", nil), true
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
// call has run.
func (a *Agent) prune() {
	if !a.cfg.Guards.PruneRetries || len(a.pending) == 0 {
		a.pending = nil
		return
	}
	keep := a.history[:0]
	for i, m := range a.history {
		if !slices.Contains(a.pending, i) {
			keep = append(keep, m)
		}
	}
	a.history = keep
	a.pending = nil
}
