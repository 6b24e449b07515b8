package chat

import (
	"bytes"
	"encoding/json"
	"strings"
)

// WithPromptTools returns msgs with the tools described in the system
// message, in the prompt-based format of seed 004 Example 12, for templates
// that cannot render tools: one line per tool with its description and
// parameters, then the reply format. An existing system message keeps its
// text first.
func WithPromptTools(msgs []Message, tools []Tool) []Message {
	var b strings.Builder
	b.WriteString("You can use these tools:\n")
	for _, t := range tools {
		var def struct {
			Function struct {
				Description string `json:"description"`
			} `json:"function"`
		}
		json.Unmarshal(t.Raw, &def)
		b.WriteString("- " + t.Name + ": " + def.Function.Description)
		if len(t.Parameters) > 0 {
			b.WriteString(" Arguments (JSON Schema): " + compactJSONText(t.Parameters))
		}
		b.WriteByte('\n')
	}
	b.WriteString("Reply with exactly one JSON object and nothing else.\n")
	b.WriteString(`To call a tool: {"tool": "<name>", "arguments": {...}}` + "\n")
	b.WriteString(`To answer the user: {"answer": "<text>"}`)
	out := append([]Message(nil), msgs...)
	if len(out) > 0 && out[0].Role == "system" {
		out[0].Content = out[0].Content + "\n\n" + b.String()
		return out
	}
	return append([]Message{{Role: "system", Content: b.String()}}, out...)
}

// compactJSONText writes raw JSON without whitespace, keeping key order.
func compactJSONText(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
