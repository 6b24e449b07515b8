package local

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/llama"
)

// withReasoning returns req with the template's reasoning switch set in
// its Extra: on or off as asked, or the loop default (chat.ReasoningSwitch
// DefaultOn). Variables the request sets itself win.
func withReasoning(t *chat.Template, req Request) (Request, error) {
	sw := t.ReasoningSwitch()
	var on bool
	switch req.Reasoning {
	case model.ReasoningOn:
		on = true
	case model.ReasoningOff:
	default:
		if !sw.DefaultOn() && req.ReasoningBudget == 0 {
			return req, nil
		}
		on = true
	}
	vars := sw.Vars(on, req.ReasoningBudget)
	if vars == nil {
		return req, nil
	}
	merged := map[string]json.RawMessage{}
	if err := json.Unmarshal(vars, &merged); err != nil {
		return req, err
	}
	if len(req.Extra) > 0 {
		var own map[string]json.RawMessage
		if err := json.Unmarshal(req.Extra, &own); err != nil {
			return req, fmt.Errorf("local: template variables: %w", err)
		}
		for k, v := range own {
			merged[k] = v
		}
	}
	b, err := json.Marshal(merged)
	if err != nil {
		return req, err
	}
	req.Extra = b
	return req, nil
}

// budgeted generates the reply with its reasoning capped at
// req.ReasoningBudget tokens. The first part is generated with that many
// tokens at most; when it ends inside the format's reasoning block, the
// client writes the block's end itself (as llama-server's reasoning
// budget does), feeds it to the grammar and the parser, and the model
// goes on from there with the rest of req.MaxTokens. The prompt cache
// makes the second part cost only the closing tokens.
func (c *Client) budgeted(ctx context.Context, er engine.Request, req Request, b *grammar.Block, prompt string,
	feed func(string)) (*engine.Result, error) {
	first := er
	first.NPredict = req.ReasoningBudget
	if req.MaxTokens > 0 && req.MaxTokens <= req.ReasoningBudget {
		return engine.Generate(ctx, c.slot, er)
	}
	res, err := engine.Generate(ctx, c.slot, first)
	if err != nil || res.StopType != engine.StopLimit {
		return res, err
	}
	closing := ""
	if reasoningOpen(prompt, res.Text, b) {
		closing = b.Close + "\n\n"
		if !strings.HasSuffix(res.Text, "\n") {
			closing = "\n" + closing
		}
	}
	closeToks, err := c.model.Tokenize(closing, false, true)
	if err != nil {
		return res, err
	}
	if er.Grammar != nil {
		for _, t := range closeToks {
			if err := er.Grammar.Accept(t); err != nil {
				return res, fmt.Errorf("local: closing the reasoning at its budget: %w", err)
			}
		}
	}
	feed(closing)
	rest := er
	rest.Prompt = append(append(append([]llama.Token{}, er.Prompt...), res.Tokens...), closeToks...)
	if req.MaxTokens > 0 {
		rest.NPredict = req.MaxTokens - len(res.Tokens) - len(closeToks)
		if rest.NPredict <= 0 {
			res.Text += closing
			res.Tokens = append(res.Tokens, closeToks...)
			return res, nil
		}
	}
	rest.OnPrefill = nil
	more, err := engine.Generate(ctx, c.slot, rest)
	return joinResults(res, closing, closeToks, more), err
}

// reasoningOpen reports whether the reply text ends inside the reasoning
// block, opened by the prompt or by the reply.
func reasoningOpen(prompt, text string, b *grammar.Block) bool {
	if strings.Contains(text, b.Close) {
		return strings.LastIndex(text, b.Open) > strings.LastIndex(text, b.Close)
	}
	return strings.Contains(text, b.Open) || strings.LastIndex(prompt, b.Open) > strings.LastIndex(prompt, b.Close)
}

// joinResults is the reply of both parts: the second part's prefill (the
// closing tokens) counts as generation time.
func joinResults(first *engine.Result, closing string, closeToks []llama.Token, more *engine.Result) *engine.Result {
	if more == nil {
		return first
	}
	out := *more
	out.Text = first.Text + closing + more.Text
	out.Tokens = append(append(append([]llama.Token{}, first.Tokens...), closeToks...), more.Tokens...)
	out.Prefill = first.Prefill
	out.PredictMs = first.PredictMs + more.Prefill.PromptMs + more.PredictMs
	out.Rejections += first.Rejections
	out.GrammarChecks += first.GrammarChecks
	out.Decodes += first.Decodes
	out.Drafted += first.Drafted
	out.Accepted += first.Accepted
	return &out
}
