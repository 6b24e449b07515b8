package callformat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopagent/loop/agent/chat"
)

// Detection is the tool-call format family a template writes, found by
// rendering probe conversations, and how it was found.
type Detection struct {
	Format string `json:"format"` // one of Names
	Reason string `json:"reason"`
	// Call is the template's own rendering of the probe call, as a model
	// trained on it would write it; empty when none was rendered.
	Call string `json:"probe_call,omitempty"`
}

const (
	detectToolName = "probe_tool"
	detectCallID   = "call0abc1" // 9 alphanumerics: Mistral's templates raise on other ids
	detectArgs     = `{"probe_arg":"probe_value"}`
)

var detectTools = []chat.Tool{{
	Raw:        json.RawMessage(`{"type": "function", "function": {"name": "probe_tool", "description": "A probe.", "parameters": {"type": "object", "properties": {"probe_arg": {"type": "string"}}, "required": ["probe_arg"]}}}`),
	Name:       detectToolName,
	Parameters: json.RawMessage(`{"type": "object", "properties": {"probe_arg": {"type": "string"}}, "required": ["probe_arg"]}`),
}}

// familyMarkers map a text in the rendered call to a family that writes
// it, most specific first; a text may name several candidates, which the
// read-back decides between.
var familyMarkers = []struct{ marker, format string }{
	{"to=functions." + detectToolName, "harmony"},
	{seedCallOpen, "seed-oss"},
	{"<function=" + detectToolName + ">", "qwen3-coder"},
	{"<function=" + detectToolName + ">", "functionary-v3.1"},
	{"[TOOL_CALLS]", "mistral"},
	{"<tool_call>", "hermes"},
	{"<|python_tag|>", "llama3"},
	{dsCallBegin + "function" + dsSep, "deepseek-r1"},
	{dsCallsBegin, "deepseek-v3.1"},
	{kimiSectionBegin, "kimi-k2"},
	{"functools[", "firefunction-v2"},
	{"<TOOLCALL>", "nemotron-v2"},
	{r7bActionOpen, "command-r7b"},
}

// Detect finds the call format of a template, as llama-server's
// differential analysis does, never from the model's name: it renders the
// generation prompt of a question, then the same conversation with an
// assistant turn that calls a probe tool; what the second render adds is
// the call as a model trained on the template writes it. Markers in it
// name a family, and the family's parser must read that text back: the
// probe tool, its arguments, and no text outside the call but the turn's
// end. Otherwise, and for a template that cannot render calls, the result
// is the prompt-based format, whose grammar works with any model, with the
// reason. A wrong guess would let the grammar force a model into a foreign
// format under tool_choice required.
func Detect(t *chat.Template) Detection {
	call, end, err := probeReply(t)
	if err != nil {
		return Detection{Format: "prompt", Reason: err.Error()}
	}
	if !strings.Contains(call, detectToolName) {
		return Detection{Format: "prompt", Reason: "the rendered call does not name the tool", Call: call}
	}
	cands := callFamilies(call)
	if len(cands) == 0 {
		return Detection{Format: "prompt", Reason: "the rendered call is in a format loop does not parse: " + firstLine(trimSpace(call)), Call: call}
	}
	var failed []string
	for _, c := range cands {
		if err := readsBack(c.format, call, end); err != nil {
			failed = append(failed, err.Error())
			continue
		}
		return Detection{Format: c.format, Reason: c.why + "; the " + c.format + " parser reads it back: " + detectToolName + " " + detectArgs, Call: call}
	}
	return Detection{Format: "prompt", Reason: cands[0].why + ", but " + strings.Join(failed, ", and ") + "; falling back to prompt-based", Call: call}
}

// candidate is a family a rendered call may be in, and why.
type candidate struct{ format, why string }

// callFamilies names the families of a rendered call, most specific first.
func callFamilies(call string) []candidate {
	var out []candidate
	for _, m := range familyMarkers {
		if strings.Contains(call, m.marker) {
			out = append(out, candidate{m.format, "the rendered call contains " + m.marker})
		}
	}
	trimmed := trimSpace(call)
	if strings.HasPrefix(trimmed, "{") && strings.Contains(call, `"parameters"`) {
		out = append(out, candidate{"llama3", `the rendered call is a bare JSON object with "parameters"`})
	}
	if strings.HasPrefix(strings.TrimPrefix(call, fnRecipient), detectToolName+"\n{") {
		out = append(out, candidate{"functionary-v3.2", "the rendered call is the tool's name on a line, then its arguments"})
	}
	return out
}

// readsBack parses the rendered call with the named format and checks
// that it is exactly the probe call.
func readsBack(name, call, end string) error {
	f, err := New(name, detectTools)
	if err != nil {
		return err
	}
	call = strings.TrimRight(call, " \n")
	p := f.Parse(strings.TrimSuffix(call, turnEnd(call, end)))
	switch {
	case len(p.Problems) > 0:
		return fmt.Errorf("the %s parser reports %s on it", name, p.Problems[0].Kind)
	case len(p.Calls) != 1:
		return fmt.Errorf("the %s parser reads %d calls from it", name, len(p.Calls))
	case p.Calls[0].Function.Name != detectToolName || p.Calls[0].Function.Arguments != detectArgs:
		return fmt.Errorf("the %s parser reads it as %s %s", name, p.Calls[0].Function.Name, p.Calls[0].Function.Arguments)
	case p.Content != "":
		return fmt.Errorf("the %s parser leaves %q outside the call", name, firstLine(p.Content))
	}
	return nil
}

// turnEnd returns the text at the end of the rendered call that ends the
// turn, which a parser is not asked to read: end (what follows a text
// answer) when the call ends with it, else the tags at the end of end
// that the call ends with too. Command R7B closes a text answer with
// <|END_RESPONSE|> and a call with <|END_ACTION|>, each a part of the
// reply; only the <|END_OF_TURN_TOKEN|> after them ends the turn.
func turnEnd(call, end string) string {
	end = trimSpace(end)
	if strings.HasSuffix(call, end) {
		return end
	}
	n := 0
	for n < len(call) && n < len(end) && call[len(call)-1-n] == end[len(end)-1-n] {
		n++
	}
	tail := end[len(end)-n:]
	if i := strings.IndexByte(tail, '<'); i >= 0 {
		return tail[i:]
	}
	return ""
}

// probeReply renders the probe call as the model would write it after the
// generation prompt, and the text that ends an assistant turn (found from a
// text answer), which a parser is not asked to read.
func probeReply(t *chat.Template) (call, end string, err error) {
	user := chat.Message{Role: "user", Content: "probe question"}
	callMsg := chat.Message{Role: "assistant", NullContent: t.NullCallContent(), ToolCalls: []chat.ToolCall{{ID: detectCallID,
		Type: "function", Function: chat.FunctionCall{Name: detectToolName, Arguments: `{"probe_arg": "probe_value"}`}}}}
	if !t.Caps().SupportsToolCalls && !callMsg.NullContent {
		return "", "", fmt.Errorf("the template does not render tool calls")
	}
	prefix, err := t.Render(chat.RenderInput{Messages: []chat.Message{user}, Tools: detectTools, AddGenerationPrompt: true})
	if err != nil {
		return "", "", fmt.Errorf("rendering the generation prompt failed: %w", err)
	}
	full, err := t.Render(chat.RenderInput{Messages: []chat.Message{user, callMsg}, Tools: detectTools})
	if err != nil {
		return "", "", fmt.Errorf("rendering a tool call failed: %w", err)
	}
	text, err := t.Render(chat.RenderInput{Messages: []chat.Message{user, {Role: "assistant", Content: "probe answer"}}, Tools: detectTools})
	if err != nil {
		return "", "", fmt.Errorf("rendering a text answer failed: %w", err)
	}
	if _, after, ok := strings.Cut(text[replyStart(prefix, text):], "probe answer"); ok {
		end = after
	}
	return full[replyStart(prefix, full):], end, nil
}

// replyStart is where the assistant's reply starts in a render of the
// conversation with the reply: after the generation prompt when the render
// extends it, else after their common prefix, backed up to the start of a
// tag it ends inside. DeepSeek R1 and QwQ end their generation prompt with
// <think>, which their history leaves out, so the two part inside
// "<think>" and "<tool_call>" (minja backs up over a final '<' only).
func replyStart(prefix, full string) int {
	if strings.HasPrefix(full, prefix) {
		return len(prefix)
	}
	n := commonPrefixLen(prefix, full)
	if i := strings.LastIndexByte(full[:n], '<'); i >= 0 && i > strings.LastIndexByte(full[:n], '>') {
		n = i
	}
	return n
}

func commonPrefixLen(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
}
