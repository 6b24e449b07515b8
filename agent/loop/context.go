package loop

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/agent/window"
	"github.com/loopagent/loop/sampler"
)

// newWindow builds the context manager of cfg.Context, or none. With a
// model that counts (model.Counter: the in-process client), the budget is
// exact: the prompt is rendered with the model's template and tokenized;
// otherwise it is estimated (window.Estimate) with the tools' definitions
// as the fixed part.
func (a *Agent) newWindow() {
	if a.cfg.context == nil {
		return
	}
	wc := *a.cfg.context
	wc.System = a.messages()[0]
	wc.Pinned = len(a.cfg.FewShot.Messages())
	if c, ok := a.cfg.model.(model.Counter); ok {
		if wc.Counter == nil {
			wc.Counter = tokens{c}
		}
		if wc.Measure == nil {
			wc.Measure = a.measure(c)
		}
	} else if wc.Fixed == 0 {
		wc.Fixed = window.Estimate{}.Count(string(a.cfg.tools.Definitions()))
	}
	a.window = window.New(wc)
}

// tokens is a model's tokenizer as a window.Counter.
type tokens struct{ c model.Counter }

func (t tokens) Count(text string) int { return t.c.Tokens(text) }

// measure counts a history's prompt exactly, as the next request would
// send it; a history the template cannot render is estimated.
func (a *Agent) measure(c model.Counter) func(msgs []chat.Message) int {
	return func(msgs []chat.Message) int {
		n, err := c.PromptTokens(model.Request{Messages: msgs, Tools: a.tools, Extra: a.cfg.Extra,
			Reasoning: a.cfg.Reasoning, ReasoningBudget: a.cfg.ReasoningBudget, Format: a.cfg.Format})
		if err != nil {
			n = window.Estimate{}.Count(string(a.cfg.tools.Definitions()))
			for _, m := range msgs {
				n += window.MessageTokens(window.Estimate{}, 4, m)
			}
		}
		return n
	}
}

// fit hands the history to the context manager before a request: it
// checks the call/result pairs, compacts above the trigger (the old turns
// summarized, stale results stubbed) and checks that the prompt and the
// reply's reserve fit the window. A prompt that still does not fit is
// window.ErrContextFull: nothing is cut silently.
func (a *Agent) fit(ctx context.Context) error {
	if a.window == nil {
		return nil
	}
	if err := a.window.Replace(a.messages()); err != nil {
		return err
	}
	r, err := a.window.Request(ctx)
	if err != nil {
		return err
	}
	if c := r.Compaction; c != nil {
		a.compacted(*c, r.Messages)
	}
	return nil
}

// compactNow compacts whatever the trigger says, after the model refused
// a prompt as too long.
func (a *Agent) compactNow(ctx context.Context) error {
	if err := a.window.Replace(a.messages()); err != nil {
		return err
	}
	c, err := a.window.Compact(ctx)
	if err != nil {
		return err
	}
	if c.Removed == 0 && !c.Reset {
		return fmt.Errorf("nothing left to compact (%d prompt tokens)", c.After)
	}
	a.compacted(c, a.window.History())
	return nil
}

// compacted takes the compacted history (system message first) and
// reports the compaction.
func (a *Agent) compacted(c window.Compaction, msgs []chat.Message) {
	a.history = slices.Clone(msgs[1+len(a.cfg.FewShot.Messages()):])
	a.pending = nil
	a.out.Compactions++
	detail := fmt.Sprintf("%d messages summarized, %d stale results stubbed, %d → %d prompt tokens", c.Removed, c.Stubbed, c.Before, c.After)
	if c.Reset {
		detail += "; reset to the task and the summary"
	}
	a.emit(transcript.Event{Kind: transcript.KindCompact, Detail: detail})
}

// capResult is what the history may hold of a tool's result: the
// window's cap on entry (a failed command cut to its error lines first),
// so that an oversized result never enters.
func (a *Agent) capResult(tool, content string, failed bool) string {
	if a.window == nil {
		return content
	}
	return a.window.Cap(tool, content, failed)
}

// Summarizer returns a window.Summarizer that asks m itself for the
// summary, with the prose preset and at most maxTokens tokens: the model
// that ran the turns summarizes them (seed 002 Example 6).
func Summarizer(m model.Model, maxTokens int) window.Summarizer {
	return func(ctx context.Context, prompt string) (string, error) {
		resp, err := m.Complete(ctx, model.Request{Messages: []chat.Message{{Role: "user", Content: prompt}},
			MaxTokens: maxTokens, Sampling: model.Sampling{Preset: sampler.PresetProse}, Reasoning: model.ReasoningOff})
		if err != nil {
			return "", err
		}
		text := strings.TrimSpace(resp.Message.Content)
		if text == "" {
			return "", fmt.Errorf("the model wrote an empty summary (finish reason %s)", resp.FinishReason)
		}
		return text, nil
	}
}
