package window

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/decimal"
)

// Reuse compares two consecutive rendered prompts (seed 002 Example 12).
// The engine reuses its KV cache up to the first token that differs, so
// the shared prefix predicts, in characters, how much of the second
// request is read from the cache and how much is computed again.
type Reuse struct {
	// First and Second are the prompts' lengths, Shared their common
	// prefix, in characters.
	First, Second, Shared int
}

// New is the number of characters of the second prompt to compute.
func (r Reuse) New() int { return r.Second - r.Shared }

// Extends reports whether the first prompt is a prefix of the second:
// the append-only property that holds between compactions.
func (r Reuse) Extends() bool { return r.Shared == r.First }

// String reads "req1 155 chars, req2 331 chars, shared 155 (100% of
// req1), new 176".
func (r Reuse) String() string {
	share := 0.0
	if r.First > 0 {
		share = 100 * float64(r.Shared) / float64(r.First)
	}
	return fmt.Sprintf("req1 %d chars, req2 %d chars, shared %d (%s%% of req1), new %d",
		r.First, r.Second, r.Shared, decimal.Fixed(share, 0), r.New())
}

// Renderer renders a request as the model reads it: the chat template,
// or ChatML.
type Renderer func(msgs []chat.Message) (string, error)

// PrefixReuse renders two consecutive requests and measures their common
// prefix.
func PrefixReuse(render Renderer, first, second []chat.Message) (Reuse, error) {
	a, err := render(first)
	if err != nil {
		return Reuse{}, err
	}
	b, err := render(second)
	if err != nil {
		return Reuse{}, err
	}
	return CommonPrefix(a, b), nil
}

// CommonPrefix measures two rendered prompts.
func CommonPrefix(a, b string) Reuse {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	for i > 0 && i < len(a) && !utf8.RuneStart(a[i]) {
		i-- // back to the start of a rune both share
	}
	return Reuse{
		First:  utf8.RuneCountInString(a),
		Second: utf8.RuneCountInString(b),
		Shared: utf8.RuneCountInString(a[:i]),
	}
}

// ChatML renders messages as ChatML, the format of the Qwen 2.5 template,
// without tools: each message as <|im_start|>role, its text and
// <|im_end|>, then the assistant's header. It stands in for a model's own
// template where none is loaded; a call is written as Hermes does,
// <tool_call>{"name":...,"arguments":...}</tool_call>, and a result as a
// user turn in <tool_response> tags.
func ChatML(msgs []chat.Message) (string, error) {
	var sb strings.Builder
	for _, m := range msgs {
		role, text := m.Role, m.Text()
		if role == "tool" {
			role, text = "user", "<tool_response>"+text+"</tool_response>"
		}
		for _, c := range m.ToolCalls {
			text += `<tool_call>{"name":"` + c.Function.Name + `","arguments":` + c.Function.Arguments + `}</tool_call>`
		}
		sb.WriteString("<|im_start|>" + role + "\n" + text + "<|im_end|>\n")
	}
	sb.WriteString("<|im_start|>assistant\n")
	return sb.String(), nil
}
