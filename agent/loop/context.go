package loop

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/agent/window"
	"github.com/loopagent/loop/sampler"
)

// newWindow builds the context manager, which holds the conversation:
// the system message, the few-shot examples (pinned) and the history the
// loop adds to. Without context management (Settings.NoContext) it only
// keeps it. With a model that counts (model.Counter: the in-process
// client), the budget is exact: the prompt is rendered with the model's
// template and tokenized; otherwise it is estimated (window.Estimate)
// with the tools' definitions as the fixed part.
func (a *Agent) newWindow() error {
	wc := window.Config{Off: true}
	if a.cfg.context != nil {
		wc = *a.cfg.context
		if c, ok := a.cfg.model.(model.Counter); ok {
			if wc.Counter == nil {
				wc.Counter = tokens{c}
			}
			if wc.Measure == nil {
				wc.Measure = a.measure(c)
			}
		} else {
			if wc.Fixed == 0 {
				wc.Fixed = window.Estimate{}.Count(string(a.cfg.tools.Definitions()))
			}
			if wc.Measure == nil {
				// Without a tokenizer, the prompt_tokens a reply reports
				// correct the estimate of the history it was sent.
				a.corrected = &window.Corrected{Counter: wc.Counter, Fixed: wc.Fixed}
				wc.Measure = a.corrected.Measure
			}
		}
	}
	shots := a.cfg.FewShot.Messages()
	wc.System, wc.Pinned = chat.Message{Role: "system", Content: a.cfg.system}, len(shots)
	a.window = window.New(wc)
	for _, m := range shots {
		if err := a.window.Append(m); err != nil {
			return fmt.Errorf("loop: the few-shot examples: %w", err)
		}
	}
	for _, m := range a.cfg.History {
		if err := a.window.Append(m); err != nil {
			return fmt.Errorf("loop: the history to continue: %w", err)
		}
		for _, c := range m.ToolCalls {
			a.ids[c.ID] = true
		}
	}
	return nil
}

// add appends a message to the conversation and notes its calls' ids.
// The loop adds only whole call/result pairs with ids of their own
// (uniqueIDs), so an error here is the harness's: the step ends with it.
func (a *Agent) add(m chat.Message) {
	if err := a.window.Append(m); err != nil && a.broken == nil {
		a.broken = err
	}
	for _, c := range m.ToolCalls {
		a.ids[c.ID] = true
	}
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

// fit checks the conversation before a request: the call/result pairs,
// a compaction above the trigger (the old turns summarized, stale results
// stubbed), and that the prompt and the reply's reserve fit the window. A
// prompt that still does not fit is window.ErrContextFull: nothing is cut
// silently.
func (a *Agent) fit(ctx context.Context) error {
	r, err := a.window.Request(ctx)
	if err != nil {
		return err
	}
	if c := r.Compaction; c != nil {
		a.compacted(*c)
	}
	return nil
}

// compactNow compacts whatever the trigger says, after the model refused
// a prompt as too long; without context management there is nothing to
// do.
func (a *Agent) compactNow(ctx context.Context) error {
	if a.cfg.context == nil {
		return errors.New("context management is off")
	}
	c, err := a.window.Compact(ctx)
	if err != nil {
		return err
	}
	if c.Removed == 0 && !c.Reset {
		return fmt.Errorf("nothing left to compact (%d prompt tokens)", c.After)
	}
	a.compacted(c)
	return nil
}

// compacted reports a compaction.
func (a *Agent) compacted(c window.Compaction) {
	a.pending = nil
	a.out.Compactions++
	detail := fmt.Sprintf("%d messages summarized, %d stale results stubbed, %d → %d prompt tokens", c.Removed, c.Stubbed, c.Before, c.After)
	if c.Reset {
		detail += "; reset to the task and the summary"
	}
	a.emit(transcript.Event{Kind: transcript.KindCompact, Detail: detail})
}

// Summarizer returns a window.Summarizer that asks m itself for the
// summary, with the prose preset and at most maxTokens tokens: the model
// that ran the turns summarizes them, so that no second model has to be
// loaded.
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
