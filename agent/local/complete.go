package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/llama"
)

// Request, Response and Usage are the agent's model types: a Client is a
// model.Model.
type (
	Request  = model.Request
	Response = model.Response
	Usage    = model.Usage
)

var _ model.Model = (*Client)(nil)

// Complete renders, generates, parses and validates one reply. When
// generation fails or ctx is cancelled, the Response holds what was
// generated so far, parsed, with the error.
func (c *Client) Complete(ctx context.Context, req Request) (*Response, error) {
	if c.pool != nil {
		c.pool.mu.Lock()
		defer c.pool.mu.Unlock()
	}
	r, err := c.prepare(req)
	if r != nil {
		defer r.close()
	}
	if err != nil {
		return nil, err
	}
	res, genErr := r.generate(ctx)
	return r.response(res), genErr
}

// request is one Complete call on its way: what prepare built for the
// engine, the reply's parser, and the usage as it is measured.
type request struct {
	c        *Client
	req      Request
	start    time.Time
	u        Usage
	format   callformat.Format
	prompt   string
	prefill  string
	toks     []llama.Token
	v        *validate.Validator
	g        *llama.Sampler // the call grammar, or nil
	ch, call *llama.Sampler // the chain, and the call chain or nil
	sampling model.Resolved // what the chains were built from
	stream   callformat.StreamParser
}

// prepare renders and tokenizes the prompt and builds the grammar, the
// chains and the parser, timing each part. The caller closes the result,
// also on an error.
func (c *Client) prepare(req Request) (*request, error) {
	r := &request{c: c, start: time.Now()}
	msgs, prefill := splitPrefill(req.Messages)
	req, err := withReasoning(c.toolTmpl, req)
	if err != nil {
		return nil, err
	}
	r.req, r.prefill = req, prefill
	if r.v, err = c.validator(req); err != nil {
		return nil, err
	}
	r.u.ValidateMs = msSince(r.start) // compiling the tools' schemas
	if r.format, err = c.format(req); err != nil {
		return nil, err
	}
	t := time.Now()
	if r.prompt, err = c.render(msgs, req, r.format.Name()); err != nil {
		return nil, err
	}
	r.prompt += prefill
	r.u.RenderMs, t = msSince(t), time.Now()
	if r.toks, err = c.tokenize(r.prompt); err != nil {
		return nil, err
	}
	r.u.TokenizeMs, t = msSince(t), time.Now()
	if r.g, err = c.grammar(r.format, req, prefill); err != nil {
		return r, err
	}
	r.u.GrammarMs = msSince(t)
	if r.sampling, err = req.Sampling.Resolve(c.meta); err != nil {
		return r, err
	}
	if r.ch, err = engine.Chain(c.ctx, r.sampling.Answer); err != nil {
		return r, err
	}
	if r.sampling.Call != nil && r.g != nil {
		if r.call, err = engine.Chain(c.ctx, *r.sampling.Call); err != nil {
			return r, err
		}
	}
	if r.stream, err = c.stream(req, r.format, r.prompt); err != nil {
		return r, err
	}
	if req.OnStart != nil {
		req.OnStart(model.Start{Format: r.format.Name(), Sampling: r.sampling, PromptTokens: len(r.toks)})
	}
	return r, nil
}

// close frees the grammar and the chains.
func (r *request) close() {
	for _, s := range []*llama.Sampler{r.g, r.ch, r.call} {
		if s != nil {
			s.Close()
		}
	}
}

// feed parses a piece of the reply and passes on what it says.
func (r *request) feed(s string) {
	t := time.Now()
	ds := r.stream.Feed(s)
	r.u.ParseMs += msSince(t)
	for _, d := range ds {
		if r.req.OnDelta != nil {
			r.req.OnDelta(d)
		}
	}
}

// generate runs the engine, with the reasoning budget when one is set.
func (r *request) generate(ctx context.Context) (*engine.Result, error) {
	req := r.req
	r.feed(r.prefill)
	er := engine.Request{
		Prompt: r.toks, Chain: r.ch, CallChain: r.call, Grammar: r.g, NPredict: req.MaxTokens, OnPrefill: req.OnPrefill,
		DraftMax: r.c.draftMax, DraftInCalls: r.c.draftInCalls, Pace: &r.c.pace, Sources: r.c.sources(r.format, req.DraftSources),
		AnswerSources: r.c.sources(nil, req.AnswerSources),
		OnText: func(s string) {
			if r.u.FirstTokenMs == 0 {
				r.u.FirstTokenMs = msSince(r.start)
			}
			r.feed(s)
		},
	}
	var res *engine.Result
	var err error
	if b := r.format.ReasoningBlock(); b != nil && req.ReasoningBudget > 0 && req.Reasoning != model.ReasoningOff {
		res, err = r.c.budgeted(ctx, er, req, b, r.prompt, r.feed)
	} else {
		res, err = engine.Generate(ctx, r.c.slot, er)
	}
	if errors.Is(err, llama.ErrContextFull) {
		err = fmt.Errorf("%w: %w", model.ErrContextFull, err)
	}
	return res, err
}

// response parses the end of the reply, validates its calls and fills
// the usage.
func (r *request) response(res *engine.Result) *Response {
	resp := &Response{Prompt: r.prompt, Format: r.format.Name(), Calls: r.format, Text: res.Text, Sampling: r.sampling}
	t := time.Now()
	resp.Parsed = r.stream.Finish()
	u := &r.u
	u.ParseMs += msSince(t)
	u.PromptTokens, u.CompletionTokens, u.CacheN, u.PromptN = len(r.toks), len(res.Tokens), res.Prefill.CacheN, res.Prefill.PromptN
	u.PromptMs, u.PredictedMs, u.GrammarRejected = res.Prefill.PromptMs, res.PredictMs, res.Rejections
	u.DraftN, u.DraftNAccepted = res.Drafted, res.Accepted
	t = time.Now()
	r.c.finish(resp, res, r.v, r.req)
	u.ValidateMs += msSince(t)
	resp.Usage = *u
	return resp
}

// msSince is the time since t in milliseconds.
func msSince(t time.Time) float64 { return float64(time.Since(t).Microseconds()) / 1000 }

// validator checks the tools' schemas before anything is generated: a
// schema that does not compile is the caller's error, whatever tool_choice
// says. It returns nil without tools. The compiled validator is kept for
// the next request with the same tools, as an agent sends on every step.
func (c *Client) validator(req Request) (*validate.Validator, error) {
	if len(req.Tools) == 0 {
		return nil, nil
	}
	key := toolsKey(req.Tools)
	if c.lastValidator != nil && c.lastToolsKey == key {
		return c.lastValidator, nil
	}
	v, err := validate.New(req.Tools)
	if err != nil {
		return nil, err
	}
	c.lastToolsKey, c.lastValidator = key, v
	return v, nil
}

// toolsKey identifies a tool list by its definitions.
func toolsKey(ts []chat.Tool) string {
	var b strings.Builder
	for _, t := range ts {
		b.Write(t.Raw)
		b.WriteByte(0)
	}
	return b.String()
}

// stream returns the parser of the reply. Without tools, or with
// tool_choice none, it still splits reasoning from content, but reads no
// calls, as llama-server does. A prompt that ends inside the format's
// reasoning block (QwQ and DeepSeek-R1 templates open <think>) starts the
// reply in reasoning. Each call gets an id no call of the conversation
// has (callformat.UniqueIDs), drawn from idRand.
func (c *Client) stream(req Request, f callformat.Format, prompt string) (callformat.StreamParser, error) {
	noCalls := len(req.Tools) == 0 || req.ToolChoice.Mode == grammar.ChoiceNone
	open := false
	if b := f.ReasoningBlock(); b != nil {
		open = strings.LastIndex(prompt, b.Open) > strings.LastIndex(prompt, b.Close)
	}
	ids := c.idRand(req)
	sf, err := callformat.NewWithOptions(f.Name(), req.Tools, callformat.Options{
		Rand: ids, NoCalls: noCalls, ReasoningOpen: open})
	if err != nil {
		return nil, err
	}
	return callformat.UniqueIDs(sf.Stream(), sf, ids, req.Messages), nil
}

// splitPrefill separates a final assistant message, which the model
// continues, from the history.
func splitPrefill(msgs []chat.Message) ([]chat.Message, string) {
	if n := len(msgs); n > 0 && msgs[n-1].Role == "assistant" && len(msgs[n-1].ToolCalls) == 0 {
		return msgs[:n-1], msgs[n-1].Content
	}
	return msgs, ""
}

// format returns the call format for the request's tools.
func (c *Client) format(req Request) (callformat.Format, error) {
	name := c.detection.Format
	if req.Format != "" {
		name = req.Format
	}
	return callformat.NewWithOptions(name, req.Tools, callformat.Options{Rand: c.idRand(req)})
}

// grammar compiles the call grammar of the request and feeds it the
// prefill.
func (c *Client) grammar(f callformat.Format, req Request, prefill string) (*llama.Sampler, error) {
	if len(req.Tools) == 0 || req.ToolChoice.Mode == grammar.ChoiceNone || req.NoGrammar {
		return nil, nil
	}
	opts := grammar.CallOptions{Options: grammar.Options{Whitespace: req.Whitespace}, Choice: req.ToolChoice,
		Parallel: req.ParallelToolCalls, MaxCalls: req.MaxCalls}
	if c.thinking && req.ToolChoice.Mode != grammar.ChoiceAuto {
		opts.Reasoning = f.ReasoningBlock()
	}
	cg, err := c.callGrammar(f, req, opts)
	if err != nil {
		return nil, err
	}
	g, err := engine.CompileCalls(c.model, cg)
	if err != nil || g == nil || prefill == "" {
		return g, err
	}
	toks, err := c.model.Tokenize(prefill, false, true)
	if err != nil {
		g.Close()
		return nil, err
	}
	for _, t := range toks {
		if err := g.Accept(t); err != nil {
			g.Close()
			return nil, fmt.Errorf("local: the prefill %q does not fit the %s call grammar: %w", prefill, f.Name(), err)
		}
	}
	return g, nil
}

// callGrammar builds the call grammar of f for the request's tools (its
// GrammarTools when set), or returns the last one when the format, the
// tools' schemas and opts are the same: an agent sends the same tools on
// every step, and a grammar narrowed to a file's text (agent/paths) takes
// tens of milliseconds to build.
func (c *Client) callGrammar(f callformat.Format, req Request, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	tools := req.Tools
	if len(req.GrammarTools) > 0 {
		tools = req.GrammarTools
	}
	o, _ := json.Marshal(opts)
	var b strings.Builder
	b.WriteString(f.Name())
	b.Write(o)
	for _, t := range tools {
		b.WriteString("\x00" + t.Name + "\x00")
		b.Write(t.Parameters)
	}
	key := b.String()
	if c.lastGrammar != nil && c.lastGrammarKey == key {
		return c.lastGrammar, nil
	}
	if len(req.GrammarTools) > 0 {
		narrow := req
		narrow.Tools = req.GrammarTools
		var err error
		if f, err = c.format(narrow); err != nil {
			return nil, err
		}
	}
	cg, err := f.Grammar(opts)
	if err != nil {
		return nil, err
	}
	c.lastGrammarKey, c.lastGrammar = key, cg
	return cg, nil
}

// finish fills the assistant message and the finish reason, and validates
// the calls, when calls were allowed and made: a reply cut by the token
// limit without a call has nothing to validate.
func (c *Client) finish(resp *Response, res *engine.Result, v *validate.Validator, req Request) {
	p := resp.Parsed
	resp.Message = chat.Message{Role: "assistant", Content: p.Content, ReasoningContent: p.Reasoning, ToolCalls: p.Calls}
	switch {
	case res.StopType == engine.StopLimit:
		resp.FinishReason = "length"
	case len(p.Calls) > 0:
		resp.FinishReason = "tool_calls"
	default:
		resp.FinishReason = "stop"
	}
	if v == nil || req.ToolChoice.Mode == grammar.ChoiceNone || len(p.Calls) == 0 {
		return
	}
	resp.Violations = v.Validate(validate.Reply{FinishReason: resp.FinishReason, Calls: p.Calls})
}
