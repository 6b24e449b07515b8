package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/gate"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
)

// result is one executed call.
type result struct {
	tools.Result
	ms float64
}

// dispatch runs the calls of a reply. Consecutive read-only calls run side
// by side; the results come back in call order, whatever order they
// finished in, because a template without call ids pairs results with
// calls by position.
func (a *Agent) dispatch(ctx context.Context, calls []chat.ToolCall) []result {
	out := make([]result, len(calls))
	for i := 0; i < len(calls); {
		j := i + 1
		if a.cfg.tools.ReadOnly(calls[i].Function.Name) {
			for j < len(calls) && a.cfg.tools.ReadOnly(calls[j].Function.Name) {
				j++
			}
		}
		var wg sync.WaitGroup
		for k := i; k < j; k++ {
			a.emit(transcript.Event{Kind: transcript.KindCall, Call: &calls[k]})
			wg.Go(func() { out[k] = a.run(ctx, calls[k]) })
		}
		wg.Wait()
		i = j
	}
	return out
}

// run runs one call. A failure of the harness becomes an error result the
// model reads, as a refusal does.
func (a *Agent) run(ctx context.Context, c chat.ToolCall) result {
	start := time.Now()
	r, err := a.cfg.tools.Run(ctx, a.cfg.ws, c.Function.Name, json.RawMessage(c.Function.Arguments))
	if err != nil {
		r = tools.Result{Content: fmt.Sprintf("%s failed: %v", c.Function.Name, err), IsError: true, ExitCode: -1}
	}
	return result{Result: r, ms: float64(time.Since(start).Microseconds()) / 1000}
}

// observe feeds the executed calls to the result guards and the gate,
// and saves their results. A guard's note goes with the result; a stop
// ends the run once every result is saved.
func (a *Agent) observe(t turn, results []result) (Outcome, bool) {
	stop := false
	for i := range t.calls {
		c, r := &t.calls[i], results[i]
		content := a.window.Cap(c.Function.Name, r.Content, r.IsError || r.ExitCode != 0)
		step := gateStep(r.Result)
		for _, g := range a.guards.result {
			note, halt := g.observe(a, c, content, step.Edit)
			if note != "" {
				content += "\n\n" + note
				a.emit(transcript.Event{Kind: transcript.KindNote, Text: note, Call: c})
			}
			stop = stop || halt
		}
		a.noteRead(r.Result)
		a.gate.Observe(step)
		a.out.Calls++
		a.add(chat.Message{Role: "tool", ToolCallID: c.ID, Name: c.Function.Name, Content: content})
		a.emit(transcript.Event{Kind: transcript.KindResult, Call: c, Result: content, IsError: r.IsError, Ms: r.ms})
	}
	a.retries = 0
	a.prune()
	if stop {
		return a.end(LoopStop, "the same calls again after a warning", nil), true
	}
	return Outcome{}, false
}

// noteRead records the files a call showed, for the grammar of later
// edits (agent/paths).
func (a *Agent) noteRead(r tools.Result) {
	for _, rel := range r.Read {
		if !slices.Contains(a.read, rel) {
			a.read = append(a.read, rel)
		}
	}
}

// gateStep describes an executed call to the gate from its effects: the
// files it changed, the command it ran and how it ended.
func gateStep(r tools.Result) gate.Step {
	s := gate.Step{OK: !r.IsError && r.ExitCode == 0, Edit: len(r.Changed) > 0}
	if r.Ran {
		s.Command = r.Command
	}
	return s
}
