package train

import (
	"fmt"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/llama"
)

// Which tokens train: the assistant's.
//
// A rendered chat is mostly text the model reads (the system prompt, the
// tool schemas, the user's requests, the tool results); what it must learn
// to write is each assistant message, from just after the template's
// generation prompt (`<|im_start|>assistant\n` in ChatML) up to and
// including its end-of-turn token (`<|im_end|>`), which is what stops a
// reply. Only the prediction of those tokens counts in the loss; the rest
// of the chat is context.
//
// The spans come from the template itself, not from searching the text
// for ChatML markers, so they hold for any template whose renders of a
// conversation's prefixes are prefixes of its render of the whole (the
// ChatML templates are; one that rewrites earlier turns, such as a
// template dropping past reasoning, is refused with ErrReplyNotFound, and
// Config.TrainAll trains such chats whole): for assistant message i, the
// render of messages[:i] with the generation prompt ends where the reply
// starts, and the render of messages[:i+1] ends after it (less the
// newline the template writes after the end-of-turn token). A token is
// trained when its first byte lies in a span; the byte offsets of the
// tokens come from their pieces, which must spell the rendered text.

// assistantSpans returns the byte ranges of text, the render of in's whole
// conversation, that assistant messages fill, less those in skip.
func assistantSpans(t *chat.Template, in chat.PromptInput, text string, skip map[int]bool) ([][2]int, error) {
	var spans [][2]int
	msgs := in.Messages
	for i, m := range msgs {
		if m.Role != "assistant" || skip[i] {
			continue
		}
		in.Messages, in.AddGenerationPrompt = msgs[:i], true
		pre, err := local.RenderPrompt(t, in)
		if err != nil {
			return nil, err
		}
		in.Messages, in.AddGenerationPrompt = msgs[:i+1], false
		upto, err := local.RenderPrompt(t, in)
		if err != nil {
			return nil, err
		}
		start, end := len(pre.Text), len(strings.TrimRight(upto.Text, "\n"))
		if !strings.HasPrefix(text, pre.Text) || !strings.HasPrefix(text, upto.Text) || end <= start {
			return nil, &described{fmt.Sprintf("the template does not render message %d's prefix as a prefix of the chat, so its reply cannot be found", i), ErrReplyNotFound}
		}
		spans = append(spans, [2]int{start, end})
	}
	return spans, nil
}

// tokenTargets marks the tokens of text whose first byte lies in a span.
// Their byte offsets are the lengths of the pieces before them; the pieces
// must spell text (after a BOS the tokenizer adds).
func tokenTargets(m *llama.Model, toks []llama.Token, text string, spans [][2]int) ([]bool, error) {
	starts := make([]int, len(toks))
	var b strings.Builder
	for i, tok := range toks {
		starts[i] = b.Len()
		p, err := m.TokenPiece(tok, true)
		if err != nil {
			return nil, err
		}
		b.WriteString(p)
	}
	joined := b.String()
	if !strings.HasSuffix(joined, text) {
		return nil, &described{"the tokens do not spell the rendered chat, so the assistant's tokens cannot be found", ErrReplyNotFound}
	}
	shift := len(joined) - len(text)
	targets := make([]bool, len(toks))
	for i, s := range starts {
		s -= shift
		for _, sp := range spans {
			if s >= sp[0] && s < sp[1] {
				targets[i] = true
				break
			}
		}
	}
	return targets, nil
}
