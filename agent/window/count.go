package window

import (
	"unicode/utf8"

	"github.com/loopagent/loop/agent/chat"
)

// Counter counts the tokens of a text. The agent gives the manager a
// Counter backed by the model's own tokenizer, so that every budget is
// exact; Estimate stands in only when no model is loaded.
type Counter interface {
	Count(text string) int
}

// ToolCounter is a Counter that counts tool output with its own ratio.
// MessageTokens uses CountTool for tool results when the Counter has it.
type ToolCounter interface {
	Counter
	CountTool(text string) int
}

// Estimate is a character-based estimate, for when no tokenizer is at
// hand: ceil(chars / 4) for prose and code, and the conservative
// ceil(chars / 3) for tool output (JSON, logs, paths and hashes, where
// four characters per token errs low by 17 to 75 percent).
// Characters are Unicode code points.
type Estimate struct {
	// CharsPerToken is the ratio for text; 0 means 4.
	CharsPerToken int
	// ToolCharsPerToken is the ratio for tool output; 0 means 3.
	ToolCharsPerToken int
}

// Count returns ceil(chars / CharsPerToken).
func (e Estimate) Count(text string) int {
	return ceilDiv(utf8.RuneCountInString(text), orDefault(e.CharsPerToken, 4))
}

// CountTool returns ceil(chars / ToolCharsPerToken).
func (e Estimate) CountTool(text string) int {
	return ceilDiv(utf8.RuneCountInString(text), orDefault(e.ToolCharsPerToken, 3))
}

// MessageText is the text of a message that costs tokens, as the
// estimates count it: the content, then each call's name and arguments.
// The template's own markers are not in it (see MessageTokens).
func MessageText(m chat.Message) string {
	text := m.Text()
	for _, c := range m.ToolCalls {
		text += c.Function.Name + c.Function.Arguments
	}
	return text
}

// MessageTokens is the cost of one message: its text counted by c (tool
// results with CountTool when c has it) plus overhead tokens for the
// template's markers around it.
func MessageTokens(c Counter, overhead int, m chat.Message) int {
	text := MessageText(m)
	if tc, ok := c.(ToolCounter); ok && m.Role == "tool" {
		return tc.CountTool(text) + overhead
	}
	return c.Count(text) + overhead
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
