// Package retry writes what goes back to the model after its call failed
// validation: the tool result of the failed call, marked as an error, that
// names what is wrong, the shape to send, and what to do next. A bare
// "invalid arguments" leaves the model guessing; this text has everything
// the corrected call needs.
//
//	violations := validator.Validate(validate.Reply{Calls: calls})
//	// per failed call i, with its own violations:
//	text := retry.Feedback{Tools: tools}.Message(calls[i], own)
//	// "Invalid arguments for read_file: missing required argument 'path';
//	// unknown argument 'file'. Expected {"path": "<file path>"}. Call
//	// read_file again with corrected arguments."
//
// The retry budget, and whether the failed attempt stays in the history,
// are the agent loop's business.
//
// The wording follows the project's specification (../shared/seeds); the
// tests compare with it line for line.
package retry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
)

// Feedback words validation failures for the model.
type Feedback struct {
	// Tools are the tools offered: the names an unknown tool is told, and
	// the schemas of the expected shapes.
	Tools []chat.Tool
}

// Message returns the error text for a call and its violations (those of
// this call): for an unknown tool, the tools there are; otherwise the
// problems, the expected shape and the next step.
func (f Feedback) Message(call chat.ToolCall, violations []validate.Violation) string {
	name := call.Function.Name
	i := slices.IndexFunc(f.Tools, func(t chat.Tool) bool { return t.Name == name })
	if i < 0 || slices.ContainsFunc(violations, func(v validate.Violation) bool { return v.Check == validate.CheckUnknownTool }) {
		names := make([]string, len(f.Tools))
		for k, t := range f.Tools {
			names[k] = t.Name
		}
		return fmt.Sprintf("Unknown tool '%s'. Available tools: %s. Call one of them.", name, strings.Join(names, ", "))
	}
	return fmt.Sprintf("Invalid arguments for %s: %s. Expected %s. Call %s again with corrected arguments.",
		name, strings.Join(Problems(call, violations), "; "), Shape(f.Tools[i]), name)
}

// mustBe matches the validator's type message: argument 'path' must be a
// string.
var mustBe = regexp.MustCompile(`^argument '([^']*)' must be (.*)$`)

// quoted finds the argument a message names.
var quoted = regexp.MustCompile(`'([^']*)'`)

// Problems words a call's violations for the model: the missing required
// arguments first, since the corrected call cannot do without them, then
// the others in the order the model wrote the arguments; a type error
// says what arrived ("'path' must be a string, got 7"), so the model sees
// its own mistake. Checks that are not about the model's arguments (ids,
// finish_reason) are left out: the model cannot fix them.
func Problems(call chat.ToolCall, violations []validate.Violation) []string {
	order := argumentOrder(call.Function.Arguments)
	type problem struct {
		text string
		rank int
	}
	var out []problem
	for _, v := range violations {
		switch v.Check {
		case validate.CheckEmptyID, validate.CheckDuplicateID, validate.CheckLength, validate.CheckUnknownTool:
			continue
		case validate.CheckMissingArgument:
			out = append(out, problem{v.Message, -1})
			continue
		}
		text, rank := v.Message, len(order)
		if m := quoted.FindStringSubmatch(v.Message); m != nil {
			if k := slices.Index(order, strings.SplitN(m[1], "/", 2)[0]); k >= 0 {
				rank = k
			}
		}
		if m := mustBe.FindStringSubmatch(v.Message); m != nil {
			text = fmt.Sprintf("'%s' must be %s", m[1], m[2])
			if got, ok := argumentValue(call.Function.Arguments, m[1]); ok {
				text += ", got " + got
			}
		}
		out = append(out, problem{text, rank})
	}
	slices.SortStableFunc(out, func(a, b problem) int { return a.rank - b.rank })
	texts := make([]string, len(out))
	for i, p := range out {
		texts[i] = p.text
	}
	return texts
}

// Shape returns the arguments a tool expects: each required parameter
// with a placeholder of its description (or its name), quoted for
// strings: {"path": "<file path>"}.
func Shape(tool chat.Tool) string {
	var schema struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	json.Unmarshal(tool.Parameters, &schema)
	var parts []string
	for _, m := range chat.ObjectMembers(schema.Properties) {
		if !slices.Contains(schema.Required, m.Key) {
			continue
		}
		var p struct {
			Type        any    `json:"type"`
			Description string `json:"description"`
		}
		json.Unmarshal(m.Value, &p)
		label := p.Description
		if label == "" {
			label = m.Key
		}
		key, _ := json.Marshal(m.Key)
		if p.Type == "string" {
			parts = append(parts, fmt.Sprintf(`%s: "<%s>"`, key, label))
		} else {
			parts = append(parts, fmt.Sprintf(`%s: <%s>`, key, label))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// argumentValue returns the compact JSON of a top-level argument.
func argumentValue(arguments, key string) (string, bool) {
	for _, m := range chat.ObjectMembers(json.RawMessage(arguments)) {
		if m.Key == key {
			var b bytes.Buffer
			if err := json.Compact(&b, m.Value); err != nil {
				return "", false
			}
			return b.String(), true
		}
	}
	return "", false
}

// argumentOrder returns the argument names in the order written.
func argumentOrder(arguments string) []string {
	var keys []string
	for _, m := range chat.ObjectMembers(json.RawMessage(arguments)) {
		keys = append(keys, m.Key)
	}
	return keys
}
