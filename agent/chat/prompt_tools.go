package chat

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/ardanlabs/jinja"
)

// WithPromptTools returns msgs with the tools described in the system
// message, in the prompt-based format, for templates that cannot render
// tools: one line per tool with its description and an
// example of its arguments (ArgsExample), then the reply format. An example
// is shorter than a schema and shows the model the exact shape; a small
// model's window is better spent on the task. An existing system message
// keeps its text first.
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
		b.WriteString("- " + t.Name + ":")
		if d := strings.TrimSpace(def.Function.Description); d != "" {
			b.WriteString(" " + d)
			if !strings.ContainsAny(d[len(d)-1:], ".!?") {
				b.WriteByte('.')
			}
		}
		b.WriteString(" Arguments: " + ArgsExample(t.Parameters) + "\n")
	}
	b.WriteString("Reply with exactly one JSON object and nothing else.\n")
	b.WriteString(`To call a tool: {"tool": "<name>", "arguments": {...}}` + "\n")
	b.WriteString(`To answer the user: {"answer": "<text>"}`)
	out := append([]Message(nil), msgs...)
	if len(out) > 0 && out[0].Role == "system" {
		out[0].Content = out[0].Text() + "\n\n" + b.String()
		out[0].Parts, out[0].NullContent = nil, false
		return out
	}
	return append([]Message{{Role: "system", Content: b.String()}}, out...)
}

// ArgsExample writes a short example of a tool's arguments from its JSON
// Schema: the required properties (all of them, up to three, when none is
// required), each with its first "examples" entry, else its "example",
// "default", "const" or first "enum" value, else a placeholder of its type:
// "<name>" for a string, 1 for an integer, 1.5 for a number, true, [] or
// an object's own example. {"path": "src/Main.java"} comes from
// {"properties": {"path": {"type": "string", "examples": ["src/Main.java"]}}}.
func ArgsExample(params json.RawMessage) string {
	nums := numberTexts{}
	return toJSON(exampleObject(params, nums), nums, -1, ", ", ": ")
}

// exampleObject is the example of an object schema.
func exampleObject(schema json.RawMessage, nums numberTexts) jinja.Value {
	obj := jinja.NewDict()
	props, order, err := SchemaProperties(schema)
	if err != nil {
		return obj
	}
	var req struct {
		Required []string `json:"required"`
	}
	json.Unmarshal(schema, &req)
	keys := req.Required
	if len(keys) == 0 {
		keys = order[:min(len(order), 3)]
	}
	for _, k := range keys {
		obj.AsDict().Set(k, exampleValue(k, props[k], nums))
	}
	return obj
}

// exampleValue is the example of the property named name.
func exampleValue(name string, schema json.RawMessage, nums numberTexts) jinja.Value {
	var s struct {
		Examples []json.RawMessage `json:"examples"`
		Example  json.RawMessage   `json:"example"`
		Default  json.RawMessage   `json:"default"`
		Const    json.RawMessage   `json:"const"`
		Enum     []json.RawMessage `json:"enum"`
		Type     json.RawMessage   `json:"type"`
		Items    json.RawMessage   `json:"items"`
	}
	json.Unmarshal(schema, &s)
	for _, raw := range append(append([]json.RawMessage{}, s.Examples...), s.Example, s.Default, s.Const) {
		if v, err := decodeNumbers(bytes.TrimSpace(raw), nums); len(raw) > 0 && err == nil {
			return v
		}
	}
	if len(s.Enum) > 0 {
		if v, err := decodeNumbers(s.Enum[0], nums); err == nil {
			return v
		}
	}
	var typ string
	if json.Unmarshal(s.Type, &typ) != nil {
		var types []string
		if json.Unmarshal(s.Type, &types) == nil && len(types) > 0 {
			typ = types[0]
		}
	}
	switch typ {
	case "integer":
		return jinja.NewInt(1)
	case "number":
		return jinja.NewFloat(1.5)
	case "boolean":
		return jinja.NewBool(true)
	case "array":
		return jinja.NewList([]jinja.Value{})
	case "object":
		return exampleObject(schema, nums)
	}
	return jinja.NewString("<" + name + ">")
}
