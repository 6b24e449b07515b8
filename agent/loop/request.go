package loop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/loopagent/loop/agent/callformat"
	"github.com/loopagent/loop/agent/paths"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/agent/window"
	"github.com/loopagent/loop/grammar"
)

// complete sends the next request and records its reply.
func (a *Agent) complete(ctx context.Context) (*model.Response, error) {
	if err := a.fit(ctx); err != nil {
		return nil, err
	}
	req, reported := a.request(ctx)
	// The budget goes back to the configured one unless a retry of a
	// cut-off reply raises it again.
	a.sent, a.maxTokens = a.maxTokens, a.cfg.maxTokens()
	start := time.Now()
	resp, err := a.cfg.model.Complete(ctx, req)
	reported()
	if errors.Is(err, model.ErrContextFull) && a.cfg.context != nil {
		// The estimate let an overflow through: compact now and ask once
		// more.
		if cerr := a.compactNow(ctx); cerr != nil {
			return nil, fmt.Errorf("%w; compacting: %w", err, cerr)
		}
		req.Messages = a.messages()
		resp, err = a.cfg.model.Complete(ctx, req)
	}
	a.out.ModelTime += time.Since(start)
	a.out.Requests++
	if resp == nil {
		if err == nil {
			err = errors.New("the model returned no response")
		}
		return nil, err
	}
	a.count(resp.Usage)
	if a.corrected != nil && resp.Usage.PromptTokens > 0 {
		a.corrected.Observe(req.Messages, resp.Usage.PromptTokens)
	}
	usage, _ := json.Marshal(resp.Usage)
	a.emit(transcript.Event{Kind: transcript.KindReply, Text: resp.Text, FinishReason: resp.FinishReason,
		Calls: resp.Message.ToolCalls, Problems: resp.Parsed.Problems, Violations: resp.Violations, Usage: usage,
		Detail: a.reuse(resp.Prompt)})
	return resp, err
}

// request builds the next request: the conversation, the settings, the
// request guards' shaping and the callbacks. The request event goes out
// when the model has resolved what it runs with, before its prefill;
// reported, called after Complete, sends it for a request that failed
// before that.
func (a *Agent) request(ctx context.Context) (model.Request, func()) {
	req := model.Request{
		Messages: a.messages(), Tools: a.tools, ParallelToolCalls: a.cfg.ParallelToolCalls, MaxCalls: a.cfg.MaxCalls,
		Sampling: a.cfg.sampling(), MaxTokens: a.maxTokens, Extra: a.cfg.Extra, Reasoning: a.cfg.Reasoning,
		ReasoningBudget: a.cfg.ReasoningBudget, NoGrammar: a.cfg.NoGrammar, Format: a.cfg.Format,
		DraftSources: paths.Texts(a.cfg.ws, a.read),
	}
	req.AnswerSources = lastResults(req.Messages)
	for _, g := range a.guards.request {
		g.shape(ctx, a, &req)
	}
	step := a.step
	if a.cfg.OnDelta != nil {
		req.OnDelta = func(d callformat.Delta) { a.cfg.OnDelta(step, d) }
	}
	if a.cfg.OnPrefill != nil {
		req.OnPrefill = func(done, total int) { a.cfg.OnPrefill(step, done, total) }
	}
	started := false
	event := transcript.Event{Kind: transcript.KindRequest, ToolChoice: choiceName(req.ToolChoice), Tools: toolNames(a.tools),
		Messages: len(req.Messages), MaxTokens: a.maxTokens, Digest: digest(req)}
	req.OnStart = func(s model.Start) {
		started = true
		e := event
		e.Sampling, _ = json.Marshal(s.Sampling)
		e.PromptTokens = s.PromptTokens
		a.emit(e)
	}
	return req, func() {
		if !started {
			a.emit(event)
		}
	}
}

// messages are the system prompt, the few-shot examples and the history.
func (a *Agent) messages() []chat.Message { return a.window.History() }

func (a *Agent) count(u model.Usage) {
	a.out.PromptTokens += u.PromptTokens
	a.out.PromptN += u.PromptN
	a.out.CacheN += u.CacheN
	a.out.CompletionTokens += u.CompletionTokens
}

func choiceName(c grammar.Choice) string {
	switch c.Mode {
	case grammar.ChoiceRequired:
		return "required"
	case grammar.ChoiceFunction:
		return c.Function
	}
	return "auto"
}

func toolNames(ts []chat.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

// digest identifies what a request asks of the model: a SHA-256 of its
// messages, tools, tool choice, limits, sampling and format, so that two
// runs can tell whether they sent the same request.
func digest(req model.Request) string {
	b, err := json.Marshal(struct {
		Messages          []chat.Message
		Tools             []chat.Tool
		GrammarTools      []chat.Tool
		ToolChoice        grammar.Choice
		ParallelToolCalls bool
		MaxCalls          int
		Sampling          model.Sampling
		MaxTokens         int
		Extra             json.RawMessage
		Reasoning         model.Reasoning
		ReasoningBudget   int
		NoGrammar         bool
		Format            string
	}{req.Messages, req.Tools, req.GrammarTools, req.ToolChoice, req.ParallelToolCalls, req.MaxCalls, req.Sampling,
		req.MaxTokens, req.Extra, req.Reasoning, req.ReasoningBudget, req.NoGrammar, req.Format})
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// reuse compares a rendered prompt with the last one: the engine reuses
// its cache up to the first character that differs, so a prompt that
// does not extend the last one (a compaction, a pruned attempt, a
// template that rewrites the past) shows here. It is "" for a model that
// does not report its prompt.
func (a *Agent) reuse(prompt string) string {
	last := a.lastPrompt
	a.lastPrompt = prompt
	if prompt == "" || last == "" {
		return ""
	}
	return "prompt " + window.CommonPrefix(last, prompt).String()
}

// lastResults are the texts of the tool results that end msgs, the last
// step's: what an answer after them may quote.
func lastResults(msgs []chat.Message) []string {
	var out []string
	for i := len(msgs) - 1; i >= 0 && msgs[i].Role == "tool"; i-- {
		out = append(out, msgs[i].Content)
	}
	slices.Reverse(out)
	return out
}
