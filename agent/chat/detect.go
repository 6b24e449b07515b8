package chat

import (
	"encoding/json"
	"strings"
)

// Detection is the tool-call format family a template writes, found by
// rendering probe conversations, and how it was found.
type Detection struct {
	Format string `json:"format"` // "hermes", "qwen3-coder", "llama3", "mistral", "harmony" or "prompt"
	Reason string `json:"reason"`
}

const (
	detectToolName = "probe_tool"
	detectCallID   = "call0abc1" // 9 alphanumerics: Mistral's templates raise on other ids
)

var detectTools = []Tool{{
	Raw:        json.RawMessage(`{"type": "function", "function": {"name": "probe_tool", "description": "A probe.", "parameters": {"type": "object", "properties": {"probe_arg": {"type": "string"}}, "required": ["probe_arg"]}}}`),
	Name:       detectToolName,
	Parameters: json.RawMessage(`{"type": "object", "properties": {"probe_arg": {"type": "string"}}, "required": ["probe_arg"]}`),
}}

// DetectFormat renders a conversation whose assistant turn calls a probe
// tool, and the same conversation with a text answer instead, and reads the
// family from the markers around the call, as llama-server's differential
// analysis does, never from the model's name. A template that cannot render
// tool calls, or writes them in a family loop does not know, gets the
// prompt-based format, whose grammar works with any model.
func DetectFormat(t *Template) Detection {
	if !t.Caps().SupportsToolCalls {
		return Detection{"prompt", "the template does not render tool calls"}
	}
	user := Message{Role: "user", Content: "probe question"}
	call := Message{Role: "assistant", ToolCalls: []ToolCall{{ID: detectCallID, Type: "function",
		Function: FunctionCall{Name: detectToolName, Arguments: `{"probe_arg": "probe_value"}`}}}}
	text := Message{Role: "assistant", Content: "probe answer"}
	withCall, err := t.Render(RenderInput{Messages: []Message{user, call}, Tools: detectTools})
	if err != nil {
		return Detection{"prompt", "rendering a tool call failed: " + err.Error()}
	}
	withText, err := t.Render(RenderInput{Messages: []Message{user, text}, Tools: detectTools})
	if err != nil {
		return Detection{"prompt", "rendering a text answer failed: " + err.Error()}
	}
	callPart := withCall[commonPrefixLen(withCall, withText):]
	if !strings.Contains(callPart, detectToolName) {
		return Detection{"prompt", "the rendered call does not name the tool"}
	}
	for _, m := range []struct{ marker, format string }{
		{"to=functions." + detectToolName, "harmony"},
		{"<function=" + detectToolName + ">", "qwen3-coder"},
		{"[TOOL_CALLS]", "mistral"},
		{"<tool_call>", "hermes"},
		{"<|python_tag|>", "llama3"},
	} {
		if strings.Contains(callPart, m.marker) {
			return Detection{m.format, "the rendered call contains " + m.marker}
		}
	}
	trimmed := strings.TrimSpace(callPart)
	if strings.HasPrefix(trimmed, "{") && strings.Contains(callPart, `"parameters"`) {
		return Detection{"llama3", `the rendered call is a bare JSON object with "parameters"`}
	}
	return Detection{"prompt", "the rendered call is in a format loop does not parse: " + firstLine(trimmed)}
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
