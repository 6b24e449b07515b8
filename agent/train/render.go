package train

import (
	"encoding/json"
	"fmt"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/llama"
)

// doc is one rendered and tokenized chat.
type doc struct {
	tokens  []llama.Token
	targets []bool // the tokens trained; nil for all
}

// renderChats renders each chat whole with the model's template (its
// tool_use variant when the chat has tools) in the detected call format,
// tokenizes it as agent/local does, so that the model learns the prompt
// it will be given, and marks the assistant's tokens (all of them with
// all). A chat that does not fit a window is refused, naming its line: a
// window never starts inside a chat.
func renderChats(m *llama.Model, chats []Chat, window int, all bool) ([]doc, error) {
	tmpls := templates{model: m}
	docs := make([]doc, 0, len(chats))
	for _, c := range chats {
		fail := func(err error) error { return &Error{Op: "render", Path: c.Path, Line: c.Line, Err: err} }
		msgs, err := chat.ParseMessages(c.Messages)
		if err != nil {
			return nil, fail(err)
		}
		var tools []chat.Tool
		if len(c.Tools) > 0 && string(c.Tools) != "null" {
			if tools, err = chat.ParseTools(c.Tools); err != nil {
				return nil, fail(err)
			}
		}
		t, err := tmpls.get(len(tools) > 0)
		if err != nil {
			return nil, err
		}
		skip, err := unweighted(c.Messages)
		if err != nil {
			return nil, fail(err)
		}
		in := chat.PromptInput{Messages: msgs, Tools: tools, Format: callformat.Detect(t).Format}
		d, err := renderChat(m, t, in, all, skip)
		if err != nil {
			return nil, fail(err)
		}
		if len(d.tokens) > window { // with the separator, more than a window's positions and its last label
			return nil, fail(&described{fmt.Sprintf("the chat is %d tokens, more than a window of %d", len(d.tokens), window), ErrChatTooLong})
		}
		docs = append(docs, d)
	}
	return docs, nil
}

// templates are the model's chat templates, parsed on first use: the
// default one and, for chats with tools, its tool_use variant when it has
// one, as llama.cpp's server picks them.
type templates struct {
	model *llama.Model
	byUse [2]*chat.Template // [0] without tools, [1] with
}

func (ts *templates) get(withTools bool) (*chat.Template, error) {
	i := 0
	if withTools {
		i = 1
	}
	if ts.byUse[i] != nil {
		return ts.byUse[i], nil
	}
	m := ts.model
	var src, name string
	var ok bool
	if withTools {
		src, ok = m.ChatTemplate("tool_use")
		name = "the model's tool_use template"
	}
	if !ok {
		src, ok = m.ChatTemplate("")
		name = "the model's template"
	}
	if !ok {
		return nil, &Error{Op: "render", Path: m.Path(), Err: ErrNoChatTemplate}
	}
	bos, _ := m.TokenPiece(max(m.BOS(), 0), true)
	eos, _ := m.TokenPiece(max(m.EOS(), 0), true)
	t, err := chat.NewTemplate(src, bos, eos)
	if err != nil {
		return nil, &Error{Op: "render", Err: fmt.Errorf("%s: %w", name, err)}
	}
	ts.byUse[i] = t
	return t, nil
}

// unweighted returns the indices of the messages with "weight": 0, which
// the chat shows but does not train (OpenAI's fine-tuning format: a
// failed call the conversation recovers from, say). A weight is 0 or 1,
// as OpenAI allows.
func unweighted(raw json.RawMessage) (map[int]bool, error) {
	var ws []struct {
		Weight *float64 `json:"weight"`
	}
	if err := json.Unmarshal(raw, &ws); err != nil {
		return nil, err
	}
	skip := map[int]bool{}
	for i, w := range ws {
		switch {
		case w.Weight == nil || *w.Weight == 1:
		case *w.Weight == 0:
			skip[i] = true
		default:
			return nil, fmt.Errorf("message %d: weight %v, want 0 or 1", i, *w.Weight)
		}
	}
	return skip, nil
}

// renderChat renders and tokenizes one chat and marks its assistant's
// tokens, less those of the messages in skip; with all, every token is
// trained (targets nil).
func renderChat(m *llama.Model, t *chat.Template, in chat.PromptInput, all bool, skip map[int]bool) (doc, error) {
	p, err := local.RenderPrompt(t, in)
	if err != nil {
		return doc{}, err
	}
	toks, err := local.Tokenize(m, p.Text)
	if err != nil {
		return doc{}, err
	}
	d := doc{tokens: toks}
	if all {
		return d, nil
	}
	spans, err := assistantSpans(t, in, p.Text, skip)
	if err != nil {
		return doc{}, err
	}
	d.targets, err = tokenTargets(m, toks, p.Text, spans)
	return d, err
}
