package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// An agent sends the whole history back on every step: every call, every
// result. Many templates cannot render some of it: gemma-2 raises on a
// tool message ("Conversation roles must alternate"), granite 3.3, Phi-3.5
// and DeepSeek R1-Distill drop the assistant's calls, Llama 3.1 and 3.2
// raise on two calls in one message ("This model only supports single
// tool-calls at once!"). RewriteHistory turns such a history into one the
// template renders completely, as llama.cpp's template engine (minja's
// polyfills) did, driven by the template's capabilities rather than its
// name. The steps, in order:
//
//  0. Null content becomes "" where the template fails on none.
//  0. The results of parallel calls are put in the order of their calls
//     (OrderResults), where each answers one call by id: most templates
//     drop ids, and the model pairs calls with results by position.
//  1. Parallel calls become consecutive single-call turns, each followed
//     by its result (matched by id, else by position), where the template
//     writes only one call per message, and where calls become text: the
//     prompt-based format asks for one object per reply.
//  2. Calls become content in the prompt-based format,
//     {"tool": NAME, "arguments": ARGS}, with the arguments as written,
//     where the template cannot write calls, or where the model was told
//     to use that format. A template that writes calls only when content
//     is none (DeepSeek R1-Distill) gets none instead of "".
//  3. A tool result becomes a user message that names the tool and the
//     call, where the template does not write tool messages.
//  4. A system message the template refuses is merged into the next user
//     message (a newline between, as llama.cpp merges), or becomes a user
//     message when no user message follows.
//  5. Consecutive messages of one role are merged (a blank line between)
//     where the template demands alternating roles.
//
// minja wrote calls and results as JSON objects ({"tool_calls": [...]},
// {"tool_response": {...}}); loop writes calls in the format the model was
// told to use, so that its own earlier replies are examples of it, and
// results as plain text, which a small model reads more easily and which
// costs fewer tokens than an escaped JSON string.

// historyRewrite is the state of one RewriteHistory.
type historyRewrite struct {
	msgs  []Message
	notes []string
	names map[string]string // call id -> function name, of the input
}

// note records a rewrite of n items for people.
func (r *historyRewrite) note(n int, what, why string) {
	if n > 0 {
		r.notes = append(r.notes, fmt.Sprintf("%s (%d): %s", what, n, why))
	}
}

// RewriteHistory returns msgs rewritten so that the template renders all
// of it, and a line for each kind of rewrite made. callsAsText asks for
// the calls as prompt-based content whatever the template can do (the
// model was told to use the prompt-based format). msgs is not changed.
func (t *Template) RewriteHistory(msgs []Message, callsAsText bool) ([]Message, []string) {
	caps, hist := t.Caps(), t.history()
	r := &historyRewrite{msgs: cloneMessages(msgs), names: map[string]string{}}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			r.names[c.ID] = c.Function.Name
		}
	}
	r.orderResults()
	if hist.stringContent {
		r.stringContent()
	}
	asText := callsAsText || !caps.SupportsToolCalls && !hist.nullCallContent
	switch {
	case asText:
		r.splitCalls("messages with parallel calls split into single-call turns", "calls become one prompt-format object per reply")
		r.callsToText(callsAsText)
	case !caps.SupportsParallelToolCalls:
		r.splitCalls("messages with parallel calls split into single-call turns", "the template writes one call per message")
	}
	if !asText && hist.nullCallContent {
		r.nullCallContent()
	}
	if !hist.toolResults {
		r.resultsToUser()
	}
	if !caps.SupportsSystemRole {
		r.systemToUser()
	}
	if hist.alternates {
		r.mergeSameRole()
	}
	return r.msgs, r.notes
}

// cloneMessages copies msgs and their calls.
func cloneMessages(msgs []Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		m.ToolCalls = append([]ToolCall(nil), m.ToolCalls...)
		m.Parts = append([]ContentPart(nil), m.Parts...)
		out[i] = m
	}
	return out
}

// orderResults puts the results after each message with parallel calls in
// the order of the calls, where OrderResults can pair them all.
func (r *historyRewrite) orderResults() {
	n := 0
	for i := 0; i < len(r.msgs); i++ {
		m := r.msgs[i]
		if m.Role != "assistant" || len(m.ToolCalls) < 2 {
			continue
		}
		j := i + 1
		for j < len(r.msgs) && r.msgs[j].Role == "tool" {
			j++
		}
		results := r.msgs[i+1 : j]
		ordered, err := OrderResults(m.ToolCalls, results)
		if err != nil {
			continue
		}
		for k := range ordered {
			if ordered[k].ToolCallID != results[k].ToolCallID {
				copy(results, ordered)
				n++
				break
			}
		}
		i = j - 1
	}
	r.note(n, "results put in the order of their calls", "the template pairs calls and results by position")
}

// OrderResults returns results in the order of calls, whatever order the
// tools finished in: most templates drop ids and pair calls with results
// by position. Every call needs exactly one result, and
// every result a call; call ids must be unique.
func OrderResults(calls []ToolCall, results []Message) ([]Message, error) {
	pos := make(map[string]int, len(calls))
	for i, c := range calls {
		if _, dup := pos[c.ID]; dup {
			return nil, &Error{Op: "order results", Subject: fmt.Sprintf("call %d", i), Err: fmt.Errorf("duplicate call id %q", c.ID)}
		}
		pos[c.ID] = i
	}
	out := make([]Message, len(calls))
	filled := make([]bool, len(calls))
	for _, r := range results {
		i, ok := pos[r.ToolCallID]
		if !ok {
			return nil, &Error{Op: "order results", Subject: fmt.Sprintf("result %q", r.ToolCallID), Err: errors.New("no call has this id")}
		}
		if filled[i] {
			return nil, &Error{Op: "order results", Subject: fmt.Sprintf("result %q", r.ToolCallID), Err: errors.New("two results answer this call")}
		}
		out[i], filled[i] = r, true
	}
	for i, ok := range filled {
		if !ok {
			return nil, &Error{Op: "order results", Subject: fmt.Sprintf("call %d", i), Err: fmt.Errorf("no result for call id %q", calls[i].ID)}
		}
	}
	return out, nil
}

// splitCalls turns each assistant message with several calls, and the
// tool messages after it, into one turn per call: the call, then its
// result. The first turn keeps the message's content and reasoning.
func (r *historyRewrite) splitCalls(what, why string) {
	var out []Message
	n := 0
	for i := 0; i < len(r.msgs); i++ {
		m := r.msgs[i]
		if m.Role != "assistant" || len(m.ToolCalls) < 2 {
			out = append(out, m)
			continue
		}
		j := i + 1
		for j < len(r.msgs) && r.msgs[j].Role == "tool" {
			j++
		}
		out = append(out, splitTurn(m, r.msgs[i+1:j])...)
		n++
		i = j - 1
	}
	r.msgs = out
	r.note(n, what, why)
}

// splitTurn is one message's calls as single-call turns with their
// results; results that answer none of the calls follow at the end.
func splitTurn(m Message, results []Message) []Message {
	used := make([]bool, len(results))
	var out []Message
	for k, c := range m.ToolCalls {
		turn := Message{Role: "assistant", NullContent: m.NullContent, ToolCalls: []ToolCall{c}}
		if k == 0 {
			turn = m
			turn.ToolCalls = []ToolCall{c}
		}
		out = append(out, turn)
		if j := resultFor(results, used, c.ID, k); j >= 0 {
			used[j] = true
			out = append(out, results[j])
		}
	}
	for j, res := range results {
		if !used[j] {
			out = append(out, res)
		}
	}
	return out
}

// resultFor finds the unused result of the call with id, the k-th call:
// by id, else the k-th result when it names no call of its own.
func resultFor(results []Message, used []bool, id string, k int) int {
	for j, res := range results {
		if !used[j] && id != "" && res.ToolCallID == id {
			return j
		}
	}
	if k < len(results) && !used[k] && (results[k].ToolCallID == "" || id == "") {
		return k
	}
	return -1
}

// callsToText writes each call as a prompt-format object after the
// message's text.
func (r *historyRewrite) callsToText(told bool) {
	n := 0
	for i := range r.msgs {
		m := &r.msgs[i]
		if len(m.ToolCalls) == 0 {
			continue
		}
		lines := []string{}
		if text := m.Text(); text != "" {
			lines = append(lines, text)
		}
		for _, c := range m.ToolCalls {
			lines = append(lines, PromptCallText(c))
			n++
		}
		m.Content, m.Parts, m.NullContent, m.ToolCalls = strings.Join(lines, "\n"), nil, false, nil
	}
	why := "the template does not write tool_calls"
	if told {
		why = "the model was told to use the prompt-based format"
	}
	r.note(n, `calls written as {"tool": ..., "arguments": ...} content`, why)
}

// PromptCallText is a call in the prompt-based format: {"tool": NAME,
// "arguments": ARGS}, the arguments as the call has them (a JSON string
// when they are not JSON).
func PromptCallText(c ToolCall) string {
	args := strings.TrimSpace(c.Function.Arguments)
	if args == "" {
		args = "{}"
	} else if !json.Valid([]byte(args)) {
		args = QuoteJSON(args)
	}
	return `{"tool": ` + QuoteJSON(c.Function.Name) + `, "arguments": ` + args + `}`
}

// stringContent gives messages with null content "".
func (r *historyRewrite) stringContent() {
	n := 0
	for i := range r.msgs {
		if r.msgs[i].NullContent {
			r.msgs[i].NullContent = false
			n++
		}
	}
	r.note(n, `null contents given as ""`, "the template fails on none")
}

// nullCallContent gives calls with empty content a content of none.
func (r *historyRewrite) nullCallContent() {
	n := 0
	for i := range r.msgs {
		m := &r.msgs[i]
		if len(m.ToolCalls) > 0 && !m.NullContent && m.Text() == "" {
			m.Content, m.Parts, m.NullContent = "", nil, true
			n++
		}
	}
	r.note(n, "call messages given null content", "the template writes calls only when content is none")
}

// resultsToUser turns tool messages into user messages that name the
// tool and the call; a result without a name gets the name of its call.
func (r *historyRewrite) resultsToUser() {
	n := 0
	for i := range r.msgs {
		m := &r.msgs[i]
		if m.Role != "tool" {
			continue
		}
		name := m.Name
		if name == "" {
			name = r.names[m.ToolCallID]
		}
		*m = Message{Role: "user", Content: resultHeader(name, m.ToolCallID) + "\n" + m.Text()}
		n++
	}
	r.note(n, "tool results sent as user messages", "the template does not write tool messages")
}

// resultHeader is the first line of a tool result sent as a user message.
func resultHeader(name, id string) string {
	h := "Result"
	if name != "" {
		h += " of " + name
	}
	if id != "" {
		h += " (call " + id + ")"
	}
	return h + ":"
}

// systemToUser merges each system message into the next user message, or
// makes it one.
func (r *historyRewrite) systemToUser() {
	var out []Message
	var pending []string
	n := 0
	flush := func() {
		if len(pending) > 0 {
			out = append(out, Message{Role: "user", Content: strings.Join(pending, "\n")})
			pending = nil
		}
	}
	for _, m := range r.msgs {
		switch {
		case m.Role == "system" || m.Role == "developer":
			pending = append(pending, m.Text())
			n++
			continue
		case m.Role == "user" && len(pending) > 0:
			m = Message{Role: "user", Content: strings.Join(append(pending, m.Text()), "\n")}
			pending = nil
		default:
			flush()
		}
		out = append(out, m)
	}
	flush()
	r.msgs = out
	r.note(n, "system messages merged into the next user message", "the template has no system role")
}

// mergeSameRole joins consecutive user messages, and consecutive
// assistant messages without calls.
func (r *historyRewrite) mergeSameRole() {
	var out []Message
	n := 0
	for _, m := range r.msgs {
		if k := len(out) - 1; k >= 0 && out[k].Role == m.Role && (m.Role == "user" || m.Role == "assistant") &&
			len(out[k].ToolCalls) == 0 && len(m.ToolCalls) == 0 {
			out[k] = Message{Role: m.Role, Content: out[k].Text() + "\n\n" + m.Text()}
			n++
			continue
		}
		out = append(out, m)
	}
	r.msgs = out
	r.note(n, "messages merged into the one before", "the template demands alternating roles")
}
