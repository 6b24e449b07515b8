package loop

import (
	"context"
	"time"

	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/transcript"
)

// runStep runs one model request and what follows from its reply, the
// pipeline of the package doc. It reports the outcome when the step ends
// the run.
func (a *Agent) runStep(ctx context.Context) (Outcome, bool) {
	clock := startClock()
	defer a.timed(clock)
	resp, err := a.complete(ctx) // request guards, render, generate, stream
	clock.request(resp)
	if err != nil {
		return a.failed(ctx, err), true
	}
	t := a.check(resp) // reply guards: cut off, repair, readable, valid, copies
	a.classify(t)
	clock.check = clock.lap()
	if t.bad != "" {
		return a.settled(a.rejected(t)) // the error goes back, or the run gives up
	}
	a.accept(t)
	if len(t.calls) == 0 {
		return a.settled(a.answer(t)) // answer guards: the gate
	}
	clock.lap()
	results := a.dispatch(ctx, t.calls) // read-only calls side by side
	clock.tools = clock.lap()
	return a.settled(a.observe(t, results)) // result guards: loops; results saved
}

// settled ends the run with the harness's error when the conversation
// refused a message during the step.
func (a *Agent) settled(out Outcome, done bool) (Outcome, bool) {
	if a.broken != nil {
		return a.end(Failed, "", a.broken), true
	}
	return out, done
}

// stepClock measures where a step's time goes (transcript.StepTiming).
type stepClock struct {
	start, last       time.Time
	modelMs, clientMs float64
	requestMs         float64
	check, tools      float64
}

func startClock() *stepClock {
	now := time.Now()
	return &stepClock{start: now, last: now}
}

// lap returns the milliseconds since the last lap.
func (c *stepClock) lap() float64 {
	now := time.Now()
	d := now.Sub(c.last)
	c.last = now
	return float64(d.Microseconds()) / 1000
}

// request splits the model request's time into the model's prefill and
// generation and the client's own work around them.
func (c *stepClock) request(resp *model.Response) {
	c.requestMs = c.lap()
	if resp != nil {
		c.modelMs = resp.Usage.PromptMs + resp.Usage.PredictedMs
	}
	c.clientMs = max(c.requestMs-c.modelMs, 0)
}

// timed emits the step's timing.
func (a *Agent) timed(c *stepClock) {
	step := float64(time.Since(c.start).Microseconds()) / 1000
	t := transcript.StepTiming{StepMs: step, ModelMs: c.modelMs, ClientMs: c.clientMs, CheckMs: c.check, ToolsMs: c.tools}
	t.OtherMs = max(step-c.requestMs-c.check-c.tools, 0)
	a.out.AgentTime += time.Duration(t.AgentMs() * float64(time.Millisecond))
	a.emit(transcript.Event{Kind: transcript.KindTiming, Timing: &t})
}
