package chat

import (
	"strings"
	"time"

	"github.com/ardanlabs/jinja"
)

// Caps is what a chat template supports, as llama-server reports it in
// /props under chat_template_caps. The fields are in the order
// encoding/json writes llama-server's keys, so json.Marshal(caps) is the
// same text.
type Caps struct {
	// SupportsObjectArguments: the template reads a call's arguments as
	// an object (it gets them parsed, not as JSON text).
	SupportsObjectArguments bool `json:"supports_object_arguments"`
	// SupportsParallelToolCalls: the template writes every call of a
	// message, not only the first.
	SupportsParallelToolCalls bool `json:"supports_parallel_tool_calls"`
	// SupportsPreserveReasoning: the template writes the reasoning of
	// earlier assistant messages.
	SupportsPreserveReasoning bool `json:"supports_preserve_reasoning"`
	// SupportsReasoningEffort: the template reads reasoning_effort.
	SupportsReasoningEffort bool `json:"supports_reasoning_effort"`
	// SupportsStringContent: content may be a string.
	SupportsStringContent bool `json:"supports_string_content"`
	// SupportsSystemRole: the template writes a system message.
	SupportsSystemRole bool `json:"supports_system_role"`
	// SupportsToolCalls: the template writes an assistant's tool calls.
	SupportsToolCalls bool `json:"supports_tool_calls"`
	// SupportsTools: the template writes the tool definitions.
	SupportsTools bool `json:"supports_tools"`
	// SupportsTypedContent: content may be a list of typed parts
	// ({"type": "text", "text": ...}).
	SupportsTypedContent bool `json:"supports_typed_content"`
}

// How the capabilities are found: llama.cpp (common/jinja/caps.cpp)
// renders probe conversations and asks its engine which input values the
// template touched. ardanlabs/jinja cannot say, so each question is asked
// by rendering the probe twice with one value changed: the value is used
// when the two renders differ (in text, or in one failing). The probes
// and the order of the checks are llama.cpp's.

const (
	probeTools = `[{"name": "tool", "type": "function", "function": {"name": "tool1", "description": "Tool description",
		"parameters": {"type": "object", "properties": {"arg": {"type": "string", "description": "Arg description"}}, "required": ["arg"]}}}]`
	probeObjectArgs = `{"arg": "value"}`
	probeStringArgs = `"{\"arg\": \"value\"}"`
	probeToolCall   = `{"id": "call00001", "type": "function", "function": {"name": "tool1", "arguments": ARGS}}`
	probeSecondCall = `{"id": "call00002", "type": "function", "function": {"name": "tool1", "arguments": ARGS}}`
	probeToolTurns  = `[{"role": "user", "content": "User message"},
		{"role": "assistant", "content": "", "tool_calls": [CALLS]},
		{"role": "tool", "content": "Tool response", "tool_call_id": "call00001"},
		{"role": "assistant", "content": "The tool response was 'tool response'"},
		{"role": "user", "content": "User message"}]`
	reasoningMarker = "<REASONING_CONTENT_PLACEHOLDER>"
)

// probe is one probe conversation.
type probe struct {
	messages string // JSON array
	tools    string // JSON array; "" means []
	vars     map[string]jinja.Value
}

// result is the outcome of rendering a probe.
type result struct {
	out string
	ok  bool
}

// differs reports whether two renders show that the changed value was
// used.
func differs(a, b result) bool {
	return a.ok != b.ok || (a.ok && a.out != b.out)
}

// detectCaps runs the probes.
func detectCaps(t *Template) Caps {
	c := Caps{SupportsStringContent: true, SupportsSystemRole: true, SupportsToolCalls: true,
		SupportsTools: true, SupportsParallelToolCalls: true}
	t.contentCaps(&c)
	c.SupportsSystemRole = t.systemUsed(&c)
	t.toolCaps(&c, probeObjectArgs)
	if !c.SupportsObjectArguments {
		t.toolCaps(&c, probeStringArgs)
	}
	t.parallelCaps(&c)
	t.reasoningCaps(&c)
	return c
}

// contentCaps: string content works when a string renders; typed content
// when a text part's text comes out as text (not inside the printed list).
func (t *Template) contentCaps(c *Caps) {
	str := t.try(probe{messages: `[{"role": "user", "content": "STRING_MARKER"}]`})
	typed := t.try(probe{messages: `[{"role": "user", "content": [{"type": "text", "text": "TYPED_MARKER"}]}]`})
	c.SupportsTypedContent = typed.ok && strings.Contains(typed.out, "TYPED_MARKER") &&
		!strings.Contains(typed.out, "'TYPED_MARKER'") && !strings.Contains(typed.out, `"TYPED_MARKER"`)
	if !str.ok || (c.SupportsTypedContent && !strings.Contains(str.out, "STRING_MARKER")) {
		c.SupportsStringContent = false
	}
}

// systemUsed checks that a system message's text is used. Templates that
// only take content parts get it as a part: llama.cpp counts any read of
// the content, which a template iterating over parts does even when the
// probe's string content makes it fail.
func (t *Template) systemUsed(c *Caps) bool {
	content := func(text string) string {
		if !c.SupportsStringContent && c.SupportsTypedContent {
			return `[{"type": "text", "text": "` + text + `"}]`
		}
		return `"` + text + `"`
	}
	sys := func(text string) result {
		return t.try(probe{messages: `[{"role": "system", "content": ` + content(text) + `}, {"role": "user", "content": "User message"}]`})
	}
	return differs(sys("System message"), sys("System notice"))
}

// toolCaps checks tools and single tool calls with arguments given as an
// object or as JSON text.
func (t *Template) toolCaps(c *Caps, args string) {
	object := args == probeObjectArgs
	call := strings.ReplaceAll(probeToolCall, "ARGS", args)
	msgs := strings.Replace(probeToolTurns, "CALLS", call, 1)
	base := t.try(probe{messages: msgs, tools: probeTools})
	if !base.ok {
		if !object {
			c.SupportsToolCalls, c.SupportsTools = false, false
		}
		return
	}
	renamed := t.try(probe{messages: msgs, tools: strings.Replace(probeTools, `"tool1"`, `"tool7"`, 1)})
	if !differs(base, renamed) {
		c.SupportsTools = false
	}
	noCalls := t.try(probe{messages: strings.Replace(probeToolTurns, `, "tool_calls": [CALLS]`, "", 1), tools: probeTools})
	if !differs(base, noCalls) {
		c.SupportsToolCalls = false
		return
	}
	if object {
		other := t.try(probe{messages: strings.Replace(msgs, `"value"`, `"other"`, 1), tools: probeTools})
		// Printing the arguments dict as Python would ({'arg': 'value'})
		// is not reading it as an object.
		c.SupportsObjectArguments = differs(base, other) && !strings.Contains(base.out, "{'arg': ")
	}
}

// parallelCaps checks that the second of two calls is written.
func (t *Template) parallelCaps(c *Caps) {
	args := probeStringArgs
	if c.SupportsObjectArguments {
		args = probeObjectArgs
	}
	first := strings.ReplaceAll(probeToolCall, "ARGS", args)
	second := strings.ReplaceAll(probeSecondCall, "ARGS", args)
	base := t.try(probe{messages: strings.Replace(probeToolTurns, "CALLS", first+", "+second, 1), tools: probeTools})
	if !base.ok {
		c.SupportsParallelToolCalls = false
		return
	}
	changed := strings.Replace(strings.Replace(second, `"tool1"`, `"tool2"`, 1), "value", "other", 1)
	other := t.try(probe{messages: strings.Replace(probeToolTurns, "CALLS", first+", "+changed, 1), tools: probeTools})
	c.SupportsParallelToolCalls = differs(base, other)
}

// reasoningCaps checks that reasoning deeper in the history is written
// when thinking is kept, and that reasoning_effort is read.
func (t *Template) reasoningCaps(c *Caps) {
	keep := map[string]jinja.Value{
		"enable_thinking": jinja.NewBool(true), "preserve_thinking": jinja.NewBool(true),
		"clear_thinking": jinja.NewBool(false), "truncate_history_thinking": jinja.NewBool(false),
		"drop_thinking": jinja.NewBool(false),
	}
	r := t.try(probe{vars: keep, messages: `[{"role": "user", "content": "User message"},
		{"role": "assistant", "content": "Assistant message", "reasoning_content": "` + reasoningMarker + `"},
		{"role": "user", "content": "User message"},
		{"role": "assistant", "content": "Assistant message", "reasoning_content": "Reasoning content"},
		{"role": "user", "content": "User message"}]`})
	c.SupportsPreserveReasoning = r.ok && strings.Contains(r.out, reasoningMarker)

	effort := func(level string) result {
		vars := map[string]jinja.Value{"enable_thinking": jinja.NewBool(true)}
		if level != "" {
			vars["reasoning_effort"] = jinja.NewString(level)
			vars["reasoning_strength"] = jinja.NewString(level)
		}
		return t.try(probe{vars: vars, messages: `[{"role": "user", "content": "User message"}]`})
	}
	low := effort("low")
	c.SupportsReasoningEffort = differs(low, effort("high")) || differs(low, effort(""))
}

// probeTime is the clock of every probe.
var probeTime = time.Date(2024, time.July, 26, 12, 0, 0, 0, time.UTC)

// try renders a probe as caps_try_execute does: tools [] unless given, no
// BOS or EOS text, a generation prompt. When it fails, it tries once more
// with an empty reasoning_content on the assistant messages that have
// none, for templates that require one.
func (t *Template) try(p probe) result {
	msgs := mustDecodeJSON(p.messages)
	r := t.tryOnce(p, msgs)
	if r.ok {
		return r
	}
	added := false
	for _, m := range msgs.AsList().Items {
		d := m.AsDict()
		if role, _ := d.Get("role"); role.IsString() && role.AsString() == "assistant" && !d.Has("reasoning_content") {
			d.Set("reasoning_content", jinja.NewString(""))
			added = true
		}
	}
	if !added {
		return r
	}
	return t.tryOnce(p, msgs)
}

// tryOnce renders a probe once.
func (t *Template) tryOnce(p probe, msgs jinja.Value) result {
	tools := "[]"
	if p.tools != "" {
		tools = p.tools
	}
	vars := map[string]jinja.Value{
		"messages":              cloneValue(msgs),
		"tools":                 mustDecodeJSON(tools),
		"bos_token":             jinja.NewString(""),
		"eos_token":             jinja.NewString(""),
		"add_generation_prompt": jinja.NewBool(true),
	}
	for k, v := range p.vars {
		vars[k] = v
	}
	addFunctions(vars, func() time.Time { return probeTime }, nil)
	out, err := t.execute(vars)
	return result{out: out, ok: err == nil}
}
