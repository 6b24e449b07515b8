package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loopagent/loop/grammar"
)

// Message is one chat message in the OpenAI Chat Completions shape. Its
// JSON form writes content as the caller gave it: a string, typed parts,
// or null.
type Message struct {
	// Role is "system", "user", "assistant" or "tool".
	Role string `json:"role"`
	// Content is the text of the message.
	Content string `json:"content"`
	// Parts is content given as typed parts ([{"type": "text", "text":
	// ...}]), as the OpenAI API allows, instead of Content. Templates that
	// read parts get them; the others get the texts joined by newlines, as
	// llama-server gives them.
	Parts []ContentPart `json:"-"`
	// NullContent says that the content was null, as the OpenAI API sends
	// a message that only calls tools: the template sees none, not "".
	// Content and Parts are then empty.
	NullContent bool `json:"-"`
	// ReasoningContent is an assistant's reasoning, kept apart from Content.
	ReasoningContent string `json:"reasoning_content,omitempty"`
	// ToolCalls are an assistant's calls.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID links a tool result to its call.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool name of a tool result, where a template wants it.
	Name string `json:"name,omitempty"`
}

// ContentPart is one typed part of a message's content. Only "text"
// parts are taken, as llama-server takes them.
type ContentPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Text returns the content as text: Content, or the parts' texts joined
// by newlines.
func (m Message) Text() string {
	if len(m.Parts) == 0 {
		return m.Content
	}
	texts := make([]string, len(m.Parts))
	for i, p := range m.Parts {
		texts[i] = p.Text
	}
	return strings.Join(texts, "\n")
}

// MarshalJSON writes the message in the OpenAI form, content as a string,
// parts, or null.
func (m Message) MarshalJSON() ([]byte, error) {
	type plain Message
	out := struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
		plain
	}{Role: m.Role, Content: m.Content, plain: plain(m)}
	switch {
	case m.NullContent:
		out.Content = nil
	case len(m.Parts) > 0:
		out.Content = m.Parts
	}
	return json.Marshal(out)
}

// ToolCall is one call of an assistant message.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall is the function and arguments of a call. Arguments is JSON
// text, as the API carries it: a client parses it a second time.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is a tool definition as the caller wrote it: Raw keeps the whole
// object, key order included, for the template; Name and Parameters are
// read from it.
type Tool struct {
	Raw        json.RawMessage
	Name       string
	Parameters json.RawMessage
}

// ParseTools reads tools in the OpenAI form, a JSON array of
// {"type": "function", "function": {"name": ..., "description": ...,
// "parameters": {...}}}.
func ParseTools(data []byte) ([]Tool, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, &Error{Op: "parse tools", Err: err}
	}
	tools := make([]Tool, len(raw))
	for i, r := range raw {
		var t struct {
			Type     string `json:"type"`
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(r, &t); err != nil {
			return nil, &Error{Op: "parse tools", Subject: fmt.Sprintf("tool %d", i), Err: err}
		}
		if t.Function.Name == "" {
			return nil, &Error{Op: "parse tools", Subject: fmt.Sprintf("tool %d", i), Err: errors.New(`no "function": {"name": ...}`)}
		}
		tools[i] = Tool{Raw: r, Name: t.Function.Name, Parameters: t.Function.Parameters}
	}
	return tools, nil
}

// GrammarTools returns the tools in the form the grammar package takes.
func GrammarTools(tools []Tool) []grammar.Tool {
	out := make([]grammar.Tool, len(tools))
	for i, t := range tools {
		out[i] = grammar.Tool{Name: t.Name, Parameters: t.Parameters}
	}
	return out
}

// Error records a failed operation, what it acted on, and why, in the
// manner of fs.PathError.
type Error struct {
	Op      string // "render", "parse tools", "detect format", ...
	Subject string // template, tool or call; may be empty
	Err     error
}

func (e *Error) Error() string {
	if e.Subject == "" {
		return e.Op + ": " + e.Err.Error()
	}
	return e.Op + ": " + e.Subject + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ParseMessages reads a JSON array of messages in the OpenAI form. Content
// may be a string, a list of text parts, or null (or absent); a call's
// arguments may be the API's JSON string or, as some clients send them, an
// object; either way they are kept as JSON text in the caller's key order.
func ParseMessages(data []byte) ([]Message, error) {
	var raw []struct {
		Role             string          `json:"role"`
		Content          json.RawMessage `json:"content"`
		ReasoningContent string          `json:"reasoning_content"`
		ToolCallID       string          `json:"tool_call_id"`
		Name             string          `json:"name"`
		ToolCalls        []struct {
			ID       string `json:"id"`
			Type     string `json:"type"`
			Function struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, &Error{Op: "parse messages", Err: err}
	}
	out := make([]Message, len(raw))
	for i, r := range raw {
		m := Message{Role: r.Role, ReasoningContent: r.ReasoningContent, ToolCallID: r.ToolCallID, Name: r.Name}
		if err := readContent(&m, r.Content); err != nil {
			return nil, &Error{Op: "parse messages", Subject: fmt.Sprintf("message %d", i), Err: err}
		}
		for _, c := range r.ToolCalls {
			args := string(c.Function.Arguments)
			var s string
			if json.Unmarshal(c.Function.Arguments, &s) == nil {
				args = s
			}
			typ := c.Type
			if typ == "" {
				typ = "function"
			}
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: c.ID, Type: typ, Function: FunctionCall{Name: c.Function.Name, Arguments: args}})
		}
		out[i] = m
	}
	return out, nil
}

// readContent sets the content of m from its JSON: a string, a list of
// text parts, or null.
func readContent(m *Message, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		m.NullContent = true
		return nil
	}
	if json.Unmarshal(raw, &m.Content) == nil {
		return nil
	}
	var parts []ContentPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return errors.New("content must be a string, a list of text parts, or null")
	}
	for i, p := range parts {
		if p.Type != "text" {
			return fmt.Errorf("content part %d: unsupported type %q (only text parts are taken)", i, p.Type)
		}
	}
	m.Parts = parts
	return nil
}

// SchemaProperties returns the properties of an object schema and their
// declared order; none for an empty schema or one without properties.
func SchemaProperties(params json.RawMessage) (map[string]json.RawMessage, []string, error) {
	if strings.TrimSpace(string(params)) == "" {
		return nil, nil, nil
	}
	var s struct {
		Properties json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(params, &s); err != nil || len(s.Properties) == 0 || string(s.Properties) == "null" {
		return nil, nil, err
	}
	props := map[string]json.RawMessage{}
	if err := json.Unmarshal(s.Properties, &props); err != nil {
		return nil, nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(s.Properties))
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	var order []string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, nil, err
		}
		if k, _ := tok.(string); !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
	}
	return props, order, nil
}
