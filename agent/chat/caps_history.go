package chat

import (
	"strings"
	"sync"
)

// historyCaps is what rewriting a history needs to know about a template
// beyond Caps, found by rendering probes in the manner of caps.go. The
// probes are minja's (llama.cpp's template engine before common/jinja),
// which rewrote histories from them: tool responses, and calls with null
// content.
type historyCaps struct {
	// toolResults: a tool message's content is written.
	toolResults bool
	// alternates: roles must alternate; two user messages in a row fail
	// (gemma-2: "Conversation roles must alternate").
	alternates bool
	// nullCallContent: calls are written only when the message's content
	// is none, not "" (DeepSeek R1-Distill).
	nullCallContent bool
	// stringContent: content none fails where "" renders (QwQ splits
	// every assistant's content): minja's requires_non_null_content.
	stringContent bool
	// thinkingParts: for the Ministral/Devstral rewrite, an assistant's
	// text part after a "thinking" part is written (Devstral reads only
	// content[0].text, so the reasoning must not come first there).
	thinkingParts bool
}

// historyOnce guards Template.hist.
type historyOnce struct {
	once sync.Once
	caps historyCaps
}

const (
	resultNeedle = "TOOL_RESULT_NEEDLE"
	textNeedle   = "TEXT_NEEDLE"
)

// history returns the template's history capabilities, probed once.
func (t *Template) history() historyCaps {
	t.hist.once.Do(func() {
		c := t.Caps()
		t.hist.caps = historyCaps{
			toolResults:     t.probeToolResults(c),
			alternates:      t.probeAlternates(),
			nullCallContent: !c.SupportsToolCalls && t.probeNullCallContent(),
			thinkingParts:   t.probeThinkingParts(),
			stringContent:   t.probeStringContent(),
		}
	})
	return t.hist.caps
}

// NullCallContent reports whether the template writes an assistant
// message's calls only when its content is null, not "" (DeepSeek
// R1-Distill).
func (t *Template) NullCallContent() bool { return t.history().nullCallContent }

// thinkingParts reports whether a Ministral/Devstral assistant message may
// have its reasoning as a "thinking" part before its text.
func (t *Template) thinkingParts() bool { return t.history().thinkingParts }

// probeCall is an assistant message that calls tool1 with arguments as
// the template reads them, and content as given.
func probeCall(c Caps, content string) string {
	args := probeStringArgs
	if c.SupportsObjectArguments {
		args = probeObjectArgs
	}
	return `{"role": "assistant", "content": ` + content + `, "tool_calls": [` + strings.ReplaceAll(probeToolCall, "ARGS", args) + `]}`
}

// probeToolResults renders a call (or, where calls are not written, a
// text answer) and its result, and looks for the result.
func (t *Template) probeToolResults(c Caps) bool {
	assistant := `{"role": "assistant", "content": "Let me look."}`
	if c.SupportsToolCalls {
		assistant = probeCall(c, `""`)
	}
	r := t.try(probe{tools: probeTools, messages: `[{"role": "user", "content": "User message"}, ` + assistant +
		`, {"role": "tool", "name": "tool1", "tool_call_id": "call00001", "content": "` + resultNeedle + `"}]`})
	return r.ok && strings.Contains(r.out, resultNeedle)
}

// probeAlternates: one user message renders, two in a row fail.
func (t *Template) probeAlternates() bool {
	one := t.try(probe{messages: `[{"role": "user", "content": "User message"}]`})
	two := t.try(probe{messages: `[{"role": "user", "content": "User message"}, {"role": "user", "content": "` + textNeedle + `"}]`})
	return one.ok && !two.ok
}

// probeNullCallContent: with content none, the call's arguments are
// written.
func (t *Template) probeNullCallContent() bool {
	msgs := `[{"role": "user", "content": "User message"}, ` + probeCall(Caps{}, "null") + `]`
	withArgs := t.try(probe{tools: probeTools, messages: msgs})
	other := t.try(probe{tools: probeTools, messages: strings.Replace(msgs, "value", "other", 1)})
	return withArgs.ok && differs(withArgs, other)
}

// probeThinkingParts: an assistant message whose content is a thinking
// part and a text part shows the text.
func (t *Template) probeThinkingParts() bool {
	if !t.ministral3 {
		return false
	}
	r := t.try(probe{messages: `[{"role": "user", "content": "User message"}, {"role": "assistant", "content": [` +
		`{"type": "thinking", "thinking": "Reasoning"}, {"type": "text", "text": "` + textNeedle + `"}]}]`})
	return r.ok && strings.Contains(r.out, textNeedle)
}

// probeStringContent renders two assistant messages with content "" and
// with content none, as minja does (QwQ treats the last assistant message
// differently): "" shows the user messages, none does not.
func (t *Template) probeStringContent() bool {
	msgs := func(content string) string {
		user := `{"role": "user", "content": "` + textNeedle + `"}`
		assistant := `{"role": "assistant", "content": ` + content + `}`
		return "[" + user + ", " + assistant + ", " + user + ", " + assistant + "]"
	}
	empty, null := t.try(probe{messages: msgs(`""`)}), t.try(probe{messages: msgs("null")})
	return empty.ok && strings.Contains(empty.out, textNeedle) && !(null.ok && strings.Contains(null.out, textNeedle))
}
