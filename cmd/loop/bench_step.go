package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/llama"
)

// stepRows times the edit-call step as loop run ships it, rather than as
// a raw generation: the request the agent sent after reading run.go
// (callTask), completed by two agent/local clients, one plain and one
// drafting as loop run drafts by default (inside tool calls from the
// files the run read, outside them only from the last tool results), up
// to --draft-max tokens. The reply runs under the call grammar, samples
// with the agent's settings and ends where the model ends it, or at
// n_gen tokens; each repetition seeds both clients alike, so they write
// the same reply, which is checked. Each client keeps what drafting
// learnt from one repetition to the next, as loop run's does from step
// to step, but not its reply (local.Client.ForgetReplies): the same step
// drafted from its own earlier reply is not what a run decodes. The prompt stays in each client's
// cache from the warm-up on, so only the decoding is timed (the
// completion's predicted_ms). The rows are step-tgN and
// step-tgN+draftK.
func stepRows(ctx context.Context, m *llama.Model, st agentStep, f benchFlags, base benchResult) ([]benchResult, error) {
	in, err := m.Info()
	if err != nil {
		return nil, err
	}
	clients := make([]*local.Client, 2)
	for j, draftMax := range []int{0, f.draftMax} {
		c, err := local.New(m, local.Options{ContextSize: min(stepWindow, in.TrainContext), Threads: f.threads,
			FlashAttention: f.flashAttn, DraftMax: draftMax, DraftInCalls: draftMax > 0})
		if err != nil {
			return nil, err
		}
		defer c.Close()
		clients[j] = c
	}
	rows := make([]benchResult, 2)
	for j := range rows {
		r := &rows[j]
		*r = base
		r.Test, r.NGen = fmt.Sprintf("step-tg%d", f.nGen), f.nGen
		if j == 1 {
			r.Test += fmt.Sprintf("+draft%d", f.draftMax)
			r.Draft = &draftStats{DraftMax: f.draftMax}
		}
	}
	for i := -1; i < f.reps; i++ { // i == -1 is the warm-up
		var texts [2]string
		for k := range 2 {
			j := (i + 2 + k) % 2
			resp, err := clients[j].Complete(ctx, stepRequest(*st.req, f.nGen, uint32(textSeed+i+1)))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", rows[j].Test, err)
			}
			texts[j] = resp.Text
			clients[j].ForgetReplies() // each repetition sends the same step
			if i < 0 {
				continue
			}
			u := resp.Usage
			r := &rows[j]
			r.NPrompt = u.PromptTokens
			r.Samples = append(r.Samples, 1000*float64(u.CompletionTokens)/max(u.PredictedMs, 1e-3))
			if d := r.Draft; d != nil {
				if i == 0 {
					d.Output = strings.ToValidUTF8(resp.Text[:min(len(resp.Text), outputShown)], "")
				}
				d.Drafted, d.Accepted, d.Tokens = d.Drafted+u.DraftN, d.Accepted+u.DraftNAccepted, d.Tokens+u.CompletionTokens
			}
		}
		if texts[0] != texts[1] {
			return nil, fmt.Errorf("step, repetition %d: the drafting client wrote %q, the plain one %q", i+1, texts[1], texts[0])
		}
	}
	for j := range rows {
		rows[j].AvgTS, rows[j].StdevTS = meanStdev(rows[j].Samples)
	}
	return rows, nil
}

// stepWindow is the context of the step rows' clients, the window the
// agent's step was assembled for (stepAfterRead), or the model's trained
// context where that is shorter.
const stepWindow = 16384

// stepRequest is the agent's request for one repetition: its reply capped
// at n tokens and its sampling seeded, with the agent's callbacks
// dropped (the agent that made them has finished).
func stepRequest(req model.Request, n int, seed uint32) model.Request {
	req.MaxTokens = n
	req.Sampling.User.Seed = &seed
	req.IDSeed = uint64(seed)
	req.OnDelta, req.OnStart, req.OnPrefill = nil, nil, nil
	return req
}
