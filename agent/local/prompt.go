package local

import (
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
	p, err := renderPrompt(t, msgs, req, format)
	p.Text += prefill
	return p, err
}

// render writes the prompt with the tool_use template when there are
// tools.
func (c *Client) render(msgs []chat.Message, req Request, format string) (string, error) {
	t := c.tmpl
	if len(req.Tools) > 0 {
		t = c.toolTmpl
	}
	p, err := renderPrompt(t, msgs, req, format)
	return p.Text, err
}

// renderPrompt renders the history msgs, without the prefill.
func renderPrompt(t *chat.Template, msgs []chat.Message, req Request, format string) (chat.Prompt, error) {
	return t.RenderPrompt(chat.PromptInput{Messages: msgs, Tools: req.Tools, Format: format,
		ToolChoiceNone: req.ToolChoice.Mode == grammar.ChoiceNone, AddGenerationPrompt: true, Extra: req.Extra})
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
