package loop

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/paths"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/grammar"
)

// forceChoice is the tool_choice of one request: auto, a required call,
// or a named tool.
type forceChoice struct {
	mode grammar.ChoiceMode
	tool string
}

// namesFile matches a task that names a file (a path with a source, build
// or text file's extension): its first step must act, so it requires a
// call. "e.g." and "v1.2" are not files.
var namesFile = regexp.MustCompile(`(^|[\s"'(])[\w.-]*[\w-](/[\w.-]+)*\.(go|mod|py|js|jsx|ts|tsx|java|kt|rs|c|h|cc|cpp|hpp|cs|rb|php|swift|scala|sh|md|txt|json|yaml|yml|toml|xml|html|css|sql|gradle|proto|lock|cfg|ini|env)\b`)

// firstChoice is the first request's tool_choice: required when the task
// names a file, auto else. required is for one step only: a run whose
// every step requires a call can never end.
func (a *Agent) firstChoice(task string) forceChoice {
	if !a.cfg.Guards.NoForce && namesFile.MatchString(task) {
		return forceChoice{mode: grammar.ChoiceRequired}
	}
	return forceChoice{}
}

// complete sends the next request and records its reply.
func (a *Agent) complete(ctx context.Context) (*model.Response, error) {
	if err := a.fit(ctx); err != nil {
		return nil, err
	}
	req := model.Request{
		Messages: a.messages(), Tools: a.tools, ToolChoice: grammar.Choice{Mode: a.force.mode, Function: a.force.tool},
		ParallelToolCalls: a.cfg.ParallelToolCalls, MaxCalls: a.cfg.MaxCalls, Sampling: a.cfg.sampling(),
		MaxTokens: a.maxTokens, Extra: a.cfg.Extra, Reasoning: a.cfg.Reasoning, ReasoningBudget: a.cfg.ReasoningBudget,
		NoGrammar: a.cfg.NoGrammar, Format: a.cfg.Format,
	}
	if !a.cfg.Guards.NoPaths && !a.cfg.NoGrammar {
		req.GrammarTools = paths.Narrow(ctx, a.tools, a.cfg.tools, a.cfg.ws, a.read)
	}
	step := a.step
	if a.cfg.OnDelta != nil {
		req.OnDelta = func(d chat.Delta) { a.cfg.OnDelta(step, d) }
	}
	if a.cfg.OnPrefill != nil {
		req.OnPrefill = func(done, total int) { a.cfg.OnPrefill(step, done, total) }
	}
	// The request event goes out when the model has resolved what it
	// runs with, before its prefill; a request that fails before that is
	// reported without it.
	started := false
	event := transcript.Event{Kind: transcript.KindRequest, ToolChoice: choiceName(a.force), Tools: toolNames(a.tools),
		Messages: len(req.Messages), MaxTokens: a.maxTokens, Digest: digest(req)}
	req.OnStart = func(s model.Start) {
		started = true
		e := event
		e.Sampling, _ = json.Marshal(s.Sampling)
		e.PromptTokens = s.PromptTokens
		a.emit(e)
	}
	// The budget goes back to the configured one unless a retry of a
	// cut-off reply raises it again.
	a.force, a.sent, a.maxTokens = forceChoice{}, a.maxTokens, a.cfg.maxTokens()
	start := time.Now()
	resp, err := a.cfg.model.Complete(ctx, req)
	if !started {
		a.emit(event)
	}
	if errors.Is(err, model.ErrContextFull) && a.window != nil {
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
	usage, _ := json.Marshal(resp.Usage)
	a.emit(transcript.Event{Kind: transcript.KindReply, Text: resp.Text, FinishReason: resp.FinishReason,
		Calls: resp.Message.ToolCalls, Problems: resp.Parsed.Problems, Violations: resp.Violations, Usage: usage})
	return resp, err
}

// messages are the system prompt, the few-shot examples and the history.
func (a *Agent) messages() []chat.Message {
	msgs := append([]chat.Message{{Role: "system", Content: a.cfg.system}}, a.cfg.FewShot.Messages()...)
	return append(msgs, a.history...)
}

func (a *Agent) count(u model.Usage) {
	a.out.PromptTokens += u.PromptTokens
	a.out.PromptN += u.PromptN
	a.out.CacheN += u.CacheN
	a.out.CompletionTokens += u.CompletionTokens
}

func choiceName(f forceChoice) string {
	switch f.mode {
	case grammar.ChoiceRequired:
		return "required"
	case grammar.ChoiceFunction:
		return f.tool
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
