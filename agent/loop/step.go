package loop

import "context"

// runStep runs one model request and what follows from its reply, the
// pipeline of the package doc. It reports the outcome when the step ends
// the run.
func (a *Agent) runStep(ctx context.Context) (Outcome, bool) {
	resp, err := a.complete(ctx) // render, generate, stream
	if err != nil {
		return a.failed(ctx, err), true
	}
	t := a.check(resp) // finish_reason, parse, repair, validate and count
	a.classify(t)
	if t.bad != "" {
		return a.retry(t) // the error goes back, or the run gives up
	}
	a.accept(t)
	if len(t.calls) == 0 {
		return a.answer(t) // the gate judges a final answer
	}
	results := a.dispatch(ctx, t.calls) // read-only calls side by side
	return a.observe(t, results)        // loops, edits, checks; results saved
}
