package chat

import (
	"encoding/json"
	"time"
)

// PromptInput is a conversation to render as loop sends it to a model:
// `loop chat`, `loop run` and `loop template` all render through
// RenderPrompt, so that what `loop template` shows is what the model gets.
type PromptInput struct {
	// Messages is the history.
	Messages []Message
	// Tools are the tools offered.
	Tools []Tool
	// Format is the call format the model is asked to write (a
	// Detection's Format, or the one the user chose). With "prompt" the
	// tools are described in the system message (WithPromptTools) instead
	// of being given to the template, and earlier calls are written in
	// that format.
	Format string
	// ToolChoiceNone is tool_choice none: the model may not call, so the
	// prompt-based format describes no tools.
	ToolChoiceNone bool
	// AddGenerationPrompt, Extra and Now are as in RenderInput.
	AddGenerationPrompt bool
	Extra               json.RawMessage
	Now                 func() time.Time
}

// Prompt is a rendered conversation.
type Prompt struct {
	// Text is the prompt.
	Text string `json:"prompt"`
	// Messages is the history as the template got it, after the rewrites.
	Messages []Message `json:"messages"`
	// Rewrites says what RewriteHistory changed, and why.
	Rewrites []string `json:"rewrites,omitempty"`
}

// RenderPrompt renders a conversation for a model: the tools described in
// the prompt for the prompt-based format, the history rewritten for what
// the template can render (RewriteHistory), then Render.
func (t *Template) RenderPrompt(in PromptInput) (Prompt, error) {
	msgs, tools := in.Messages, in.Tools
	prompt := in.Format == "prompt"
	if prompt && len(tools) > 0 && !in.ToolChoiceNone {
		msgs, tools = WithPromptTools(msgs, tools), nil
	}
	msgs, notes := t.RewriteHistory(msgs, prompt)
	text, err := t.Render(RenderInput{Messages: msgs, Tools: tools, AddGenerationPrompt: in.AddGenerationPrompt, Extra: in.Extra, Now: in.Now})
	if err != nil {
		return Prompt{}, err
	}
	return Prompt{Text: text, Messages: msgs, Rewrites: notes}, nil
}
