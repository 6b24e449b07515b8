package loop

import (
	"context"
	"errors"
	"strings"

	"github.com/loopagent/loop/agent/window"
)

// What a conversation does between its tasks (`loop run`'s /compact and
// /clear): each changes the history, then records it, so that a session
// continued later rebuilds the conversation as it now stands.

// ErrNoContext is Compact's error when context management is off
// (Settings.NoContext): there is no compaction to run.
var ErrNoContext = errors.New("context management is off")

// Compact runs the context manager's compaction now, between tasks:
// the old turns are summarized (by the model, when it counts tokens),
// stale results stubbed, and the compaction goes to the transcript as
// one run above the trigger would. A compaction that frees no tokens (a
// summary as long as the turns it replaces) is not kept: the
// conversation stays as it was. Either way, when nothing changed,
// Removed and Stubbed are zero and After is Before.
func (a *Agent) Compact(ctx context.Context) (window.Compaction, error) {
	if a.cfg.context == nil {
		return window.Compaction{}, ErrNoContext
	}
	before := a.History()
	c, err := a.window.Compact(ctx)
	if err != nil {
		return c, err
	}
	if c.After >= c.Before {
		if c.Removed > 0 || c.Stubbed > 0 || c.Reset {
			a.cfg.History = before
			if err := a.newWindow(); err != nil {
				return c, err
			}
		}
		return window.Compaction{Before: c.Before, After: c.Before}, nil
	}
	a.compacted(c)
	a.recordHistory()
	return c, nil
}

// Clear starts a new conversation with the same system prompt, tools and
// model: the history goes, and so do the call ids and the files the call
// grammar knows were read. The transcript gets a history event that
// starts at message 0 with none, the boundary from which a continued
// session starts empty.
func (a *Agent) Clear() error {
	a.cfg.History = nil
	a.ids = map[string]bool{}
	a.read, a.broken, a.pending, a.aside = nil, nil, nil, ""
	if err := a.newWindow(); err != nil {
		return err
	}
	a.recordHistory()
	return nil
}

// Aside tells the model, with the next task, what happened between tasks
// that it should know: that the user took the last task's file changes
// back, say. The text goes before the task in the task's message; the
// guards, the gate and the transcript's task event see the task alone.
func (a *Agent) Aside(text string) {
	a.aside = strings.TrimSpace(a.aside + "\n\n" + text)
}

// takeAside is the message of task: the aside, if any, then the task.
func (a *Agent) takeAside(task string) string {
	if a.aside == "" {
		return task
	}
	msg := a.aside + "\n\n" + task
	a.aside = ""
	return msg
}
