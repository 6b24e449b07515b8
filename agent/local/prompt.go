package local

import (
	"fmt"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/grammar"
)

// Prompt returns the prompt Complete sends for req to a model whose
// template is t and whose call format is format: the history rewritten
// for the template (chat.Template.RewriteHistory), the tools described in
// the system message for the prompt-based format, and a final assistant
// message continued as prefill. `loop template` prints it, so that what it
// shows is what `loop chat` and `loop run` send.
func Prompt(t *chat.Template, format string, req Request) (chat.Prompt, error) {
	msgs, prefill := splitPrefill(req.Messages)
	req, err := withReasoning(t, req)
	if err != nil {
		return chat.Prompt{}, err
	}
	p, err := renderPrompt(t, msgs, req, format, true)
	p.Text += prefill
	return p, err
}

// HistoryPrompt is Prompt without the generation prompt: the history
// alone, a final assistant message rendered as a message, not continued.
func HistoryPrompt(t *chat.Template, format string, req Request) (chat.Prompt, error) {
	return renderPrompt(t, req.Messages, req, format, false)
}

// render writes the prompt with the tool_use template when there are
// tools.
func (c *Client) render(msgs []chat.Message, req Request, format string) (string, error) {
	t := c.tmpl
	if len(req.Tools) > 0 {
		t = c.toolTmpl
	}
	p, err := renderPrompt(t, msgs, req, format, true)
	return p.Text, err
}

// renderPrompt renders the history msgs of req, without the prefill, with
// RenderPrompt.
func renderPrompt(t *chat.Template, msgs []chat.Message, req Request, format string, gen bool) (chat.Prompt, error) {
	return RenderPrompt(t, chat.PromptInput{Messages: msgs, Tools: req.Tools, Format: format,
		ToolChoiceNone: req.ToolChoice.Mode == grammar.ChoiceNone, AddGenerationPrompt: gen, Extra: req.Extra})
}

// RenderPrompt is the one render path: Complete (`loop chat`, `loop run`),
// `loop template` and `loop train` all render here. The history's call ids
// must be unique and every result's must name an earlier call
// (validate.History); ids the format's template does not take are
// renamed for the prompt (callformat.FitIDs), and the reply's calls never
// get one of them (callformat.UniqueIDs, in stream). A format of "" is
// taken as "hermes" for the ids' scheme.
func RenderPrompt(t *chat.Template, in chat.PromptInput) (chat.Prompt, error) {
	if err := validate.History(in.Messages); err != nil {
		return chat.Prompt{}, err
	}
	name := in.Format
	if name == "" {
		name = "hermes"
	}
	f, err := callformat.New(name, in.Tools)
	if err != nil {
		return chat.Prompt{}, err
	}
	var renamed int
	in.Messages, renamed = callformat.FitIDs(in.Messages, f)
	p, err := t.RenderPrompt(in)
	if err == nil && renamed > 0 {
		note := fmt.Sprintf("call ids renamed (%d): empty, or not of the %s format's scheme", renamed, name)
		p.Rewrites = append([]string{note}, p.Rewrites...)
	}
	return p, err
}

var _ model.Counter = (*Client)(nil)

// PromptTokens is the size in tokens of the prompt Complete sends for req.
func (c *Client) PromptTokens(req Request) (int, error) {
	msgs, prefill := splitPrefill(req.Messages)
	req, err := withReasoning(c.toolTmpl, req)
	if err != nil {
		return 0, err
	}
	f, err := c.format(req)
	if err != nil {
		return 0, err
	}
	prompt, err := c.render(msgs, req, f.Name())
	if err != nil {
		return 0, err
	}
	toks, err := c.tokenize(prompt + prefill)
	return len(toks), err
}

// Tokens is the size of text in tokens, without special tokens added.
func (c *Client) Tokens(text string) int {
	toks, err := c.model.Tokenize(text, false, false)
	if err != nil {
		return len(text) / 3
	}
	return len(toks)
}
