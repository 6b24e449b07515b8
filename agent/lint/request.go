package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/loopagent/loop/agent/chat"
)

// RequestSize is what the tools cost in one chat-completions request.
type RequestSize struct {
	// Body is the request body: {"model":"local","messages":[one user
	// message],"tools":[...],"tool_choice":"auto"}, compact, the tools'
	// keys in their order.
	Body string `json:"body"`
	// Chars is the body's characters, and ToolChars those of the tools
	// in it: each definition compact, without the commas between them.
	Chars     int `json:"chars"`
	ToolChars int `json:"tool_chars"`
	// PerTool is each tool's compact definition's characters, in order.
	PerTool []int `json:"per_tool"`
}

// Request builds the body of a request that asks question with the tools
// offered, as an OpenAI-compatible client sends it, and measures it. The
// tools go in compact, with their keys in the order they were written,
// and no string is escaped beyond JSON's needs (no \u003c for <), so the
// count is the one a client that keeps key order sends. Characters are
// Unicode code points.
func Request(tools []chat.Tool, question string) (RequestSize, error) {
	var r RequestSize
	var body bytes.Buffer
	body.WriteString(`{"model":"local","messages":[{"role":"user","content":`)
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(question); err != nil {
		return r, err
	}
	body.Truncate(body.Len() - 1) // Encode's newline
	body.WriteString(`}],"tools":[`)
	for i, t := range tools {
		var def bytes.Buffer
		if err := json.Compact(&def, t.Raw); err != nil {
			return r, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		if i > 0 {
			body.WriteByte(',')
		}
		body.Write(def.Bytes())
		n := utf8.RuneCount(def.Bytes())
		r.PerTool = append(r.PerTool, n)
		r.ToolChars += n
	}
	body.WriteString(`],"tool_choice":"auto"}`)
	r.Body = body.String()
	r.Chars = utf8.RuneCountInString(r.Body)
	return r, nil
}

// String prints the size as one line: "request body: 385 characters, of
// which the tool is 275" (or "the 6 tools are").
func (r RequestSize) String() string {
	if len(r.PerTool) == 1 {
		return fmt.Sprintf("request body: %d characters, of which the tool is %d", r.Chars, r.ToolChars)
	}
	return fmt.Sprintf("request body: %d characters, of which the %d tools are %d", r.Chars, len(r.PerTool), r.ToolChars)
}
