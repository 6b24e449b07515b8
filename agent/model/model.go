// Package model is how the agent talks to a model: one chat completion
// Request in, one Response out, with the shape of llama-server's
// /v1/chat/completions and loop's in-process client.
//
// Two implementations exist: agent/local's Client runs a GGUF model in
// process (it is the one cgo dependency of the agent, injected by the
// command line), and Script replays texts that a model "wrote", through
// the same stream parser and validator of a chosen call format, so that
// the agent's loop and guards can be tested and measured without a model,
// with the same result on every run:
//
//	script, _ := model.NewScript("hermes", []model.Reply{{Text: "<tool_call>\n{...}\n</tool_call>"}})
//	resp, err := script.Complete(ctx, model.Request{Messages: msgs, Tools: tools})
//
// The package is pure Go.
package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/grammar"
)

// Model completes chats.
type Model interface {
	// Complete renders, generates, parses and validates one reply. When
	// generation fails or ctx is cancelled, the Response holds what was
	// generated so far, with the error.
	Complete(ctx context.Context, req Request) (*Response, error)
}

// ErrContextFull is wrapped by a Complete error when the prompt did not
// fit the model's context: the agent's context manager compacts the
// history and asks again.
var ErrContextFull = errors.New("the prompt does not fit the context")

// Counter is a Model that counts tokens exactly, with its own template
// and tokenizer, as the in-process client does. The context manager uses
// it for exact budgets; without it, it estimates.
type Counter interface {
	// PromptTokens is the size in tokens of the prompt Complete would
	// send for req.
	PromptTokens(req Request) (int, error)
	// Tokens is the size of a text in tokens.
	Tokens(text string) int
}

// Sized is a Model that knows its context window, in tokens.
type Sized interface {
	ContextSize() int
}

// Forker is a Model that can run a subagent in a slot of its own, with
// the whole window, while its own conversation waits (the in-process
// client). The function returned releases the subagent's model and
// gives the parent its slot back.
type Forker interface {
	// CanFork reports whether Fork can work: the model was made with room
	// for a second slot.
	CanFork() bool
	Fork() (Model, func() error, error)
}

// Request is one chat completion.
type Request struct {
	Messages []chat.Message
	Tools    []chat.Tool
	// GrammarTools, when set, are Tools with narrower schemas for the call
	// grammar alone (agent/paths: a path that must name an existing
	// file). The prompt shows Tools and the calls are validated against
	// Tools. A script has no grammar and ignores them.
	GrammarTools []chat.Tool
	// DraftSources are texts the reply may copy that the prompt does not
	// hold as the reply writes them (the files the run read, which
	// read_file showed numbered): a client that drafts takes drafts from
	// them inside calls. They never change the reply.
	DraftSources []string
	// AnswerSources are texts an answer may copy: the results of the
	// last step's calls (a test's failure, a value a tool printed). A
	// client that drafts takes drafts from them outside calls. They never
	// change the reply.
	AnswerSources []string
	// ToolChoice is tool_choice; the zero value is auto.
	ToolChoice grammar.Choice
	// ParallelToolCalls allows more than one call; MaxCalls caps them.
	ParallelToolCalls bool
	MaxCalls          int
	// Sampling is the presets and the user's settings; the model resolves
	// them with its own general.sampling.* keys (Sampling.Resolve). The
	// zero value is llama.cpp's defaults under the model's keys, as
	// llama-server resolves a request that sets nothing.
	Sampling Sampling
	// MaxTokens caps the reply: 0 until the context is full, negative no
	// reply at all (the prompt is only read into the cache).
	MaxTokens int
	// Extra are template variables, a JSON object ({"enable_thinking": false}).
	Extra json.RawMessage
	// Reasoning turns the model's reasoning on or off through the
	// template's own switch (chat.ReasoningSwitch); the zero value keeps
	// the default. ReasoningBudget caps the reasoning at that many tokens
	// (0: no cap): when it is spent, the client closes the reasoning block
	// itself and the model goes on with its answer or call. Variables in
	// Extra win over the switch.
	Reasoning       Reasoning
	ReasoningBudget int
	// NoGrammar writes calls without the call grammar: what the model
	// writes is parsed as it comes (the measurement of a raw parse rate;
	// tool_choice required is then only asked for, not enforced).
	NoGrammar bool
	// Format names the call format instead of the model's detected one
	// (one of callformat.Names; "prompt" describes the tools in the system
	// prompt for any template). A script keeps its own.
	Format string
	// Whitespace of the calls' JSON (default: at most one space).
	Whitespace grammar.Whitespace
	// OnDelta receives the reply as it streams: content, reasoning, and
	// call pieces.
	OnDelta func(callformat.Delta)
	// OnStart, when set, hears once that the prompt is rendered and the
	// sampler resolved, before the prefill: what the request runs with.
	OnStart func(Start)
	// OnPrefill, when set, hears how far the prompt's prefill is (tokens
	// computed, tokens to compute), batch by batch.
	OnPrefill func(done, total int)
	// IDSeed seeds generated call ids (0: random).
	IDSeed uint64
}

// Reasoning is a request's reasoning setting.
type Reasoning int

// The reasoning settings.
const (
	ReasoningDefault Reasoning = iota // the template's default (see chat.ReasoningSwitch.DefaultOn)
	ReasoningOn
	ReasoningOff
)

// ParseReasoning reads "on", "off" or "" (the default).
func ParseReasoning(s string) (Reasoning, error) {
	switch s {
	case "":
		return ReasoningDefault, nil
	case "on":
		return ReasoningOn, nil
	case "off":
		return ReasoningOff, nil
	}
	return 0, fmt.Errorf("reasoning %q: want on or off", s)
}

// Response is a finished completion.
type Response struct {
	// Message is the assistant message: content, reasoning and tool calls
	// with ids, ready to append to the history.
	Message chat.Message
	// FinishReason is "tool_calls", "stop" or "length".
	FinishReason string
	// Text is the raw text the model wrote, prefill excluded.
	Text string
	// Parsed is the parser's full report, problems included.
	Parsed callformat.Parsed
	// Violations are the validator's findings; a call with any must not run.
	Violations []validate.Violation
	// Prompt is the rendered prompt, prefill included.
	Prompt string
	// Format is the call format used, and Calls the format itself, built
	// for the request's tools: the agent repairs and recovers the reply's
	// calls with it rather than building it again.
	Format string
	Calls  callformat.Format `json:"-"`
	// Sampling is the sampler configuration the reply was written with.
	Sampling Resolved
	// Usage counts tokens as the OpenAI API does, with cache reuse.
	Usage Usage
}

// Start is what a request runs with, known before its prefill.
type Start struct {
	// Format is the call format.
	Format string
	// Sampling is the resolved sampler configuration.
	Sampling Resolved
	// PromptTokens is the size of the rendered prompt.
	PromptTokens int
}

// Usage is the token accounting of a completion.
type Usage struct {
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	CacheN           int     `json:"cache_n"`
	PromptN          int     `json:"prompt_n"`
	PromptMs         float64 `json:"prompt_ms"`
	PredictedMs      float64 `json:"predicted_ms"`
	GrammarRejected  int     `json:"grammar_rejected"`
	// DraftN counts the draft tokens verified when the client decodes
	// speculatively, DraftNAccepted those kept (llama-server's names).
	DraftN         int `json:"draft_n,omitempty"`
	DraftNAccepted int `json:"draft_n_accepted,omitempty"`

	// The client's own work on the request, in milliseconds, apart from
	// the model's prefill and generation: rendering the prompt, tokenizing
	// it, building the call grammar, parsing the stream as it arrives and
	// validating the calls. FirstTokenMs runs from the request to the
	// first generated text, all of these and the prefill included.
	RenderMs     float64 `json:"render_ms,omitempty"`
	TokenizeMs   float64 `json:"tokenize_ms,omitempty"`
	GrammarMs    float64 `json:"grammar_ms,omitempty"`
	ParseMs      float64 `json:"parse_ms,omitempty"`
	ValidateMs   float64 `json:"validate_ms,omitempty"`
	FirstTokenMs float64 `json:"ttft_ms,omitempty"`
}

// OverheadMs is the client's own time: render, tokenize, grammar, parse
// and validate.
func (u Usage) OverheadMs() float64 {
	return u.RenderMs + u.TokenizeMs + u.GrammarMs + u.ParseMs + u.ValidateMs
}
