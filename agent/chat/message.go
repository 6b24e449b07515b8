package chat

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loopagent/loop/grammar"
)

// Message is one chat message in the OpenAI Chat Completions shape.
type Message struct {
	// Role is "system", "user", "assistant" or "tool".
	Role string `json:"role"`
	// Content is the text of the message.
	Content string `json:"content"`
	// ReasoningContent is an assistant's reasoning, kept apart from Content.
	ReasoningContent string `json:"reasoning_content,omitempty"`
	// ToolCalls are an assistant's calls.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID links a tool result to its call.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// Name is the tool name of a tool result, where a template wants it.
	Name string `json:"name,omitempty"`
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

// ParseMessages reads a JSON array of messages in the OpenAI form. A call's
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
		if len(r.Content) > 0 && string(r.Content) != "null" {
			if err := json.Unmarshal(r.Content, &m.Content); err != nil {
				return nil, &Error{Op: "parse messages", Subject: fmt.Sprintf("message %d", i), Err: errors.New("content must be a string")}
			}
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
