package repair

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
)

// Kind names how a call was repaired or recovered, for the transcript and
// `loop eval`.
type Kind string

// The kinds of Fix.
const (
	// KindJSON: a call in the format's own markup whose JSON needed
	// repair (trailing comma, single quotes, ...).
	KindJSON Kind = "json"
	// KindFenced: a call in a Markdown code fence (```json ... ```).
	KindFenced Kind = "fenced"
	// KindFunctionTag: <function=NAME>{...}</function> or
	// <function name="NAME">{...}</function>.
	KindFunctionTag Kind = "function_tag"
	// KindWrapper: a call object in <tool_call>, <tool>, <tools>,
	// <function_call>, <response>, <json> or <xml> tags (any case).
	KindWrapper Kind = "wrapper"
	// KindBareObject: a {"name": ..., "arguments": ...} object with no
	// markup, where nothing but white space and other calls precedes it.
	KindBareObject Kind = "bare_object"
)

// Fix is one call that a Fixer repaired or recovered, or found and refused.
type Fix struct {
	Kind Kind `json:"kind"`
	// Call is the call as it will run (or would have, when refused). Its
	// ID is empty: assign one with the format's NewID.
	Call chat.ToolCall `json:"call"`
	// Repairs are the JSON repairs it needed, by their names
	// (TrailingComma, ...).
	Repairs []string `json:"repairs,omitempty"`
	// Refused says why the call was not taken: "truncated", "not a JSON
	// object", "written after text: a mention, not a call", or the Check's
	// error. Empty when it was taken.
	Refused string `json:"refused,omitempty"`
}

// Fixer repairs the JSON of a reply's calls and recovers calls the model
// wrote outside its format. The zero value does neither: set Format to
// repair, and Check to recover. It is safe for concurrent use when its
// Format and Check are.
type Fixer struct {
	// Format is the reply's format. The JSON repair re-reads the repaired
	// text with it; nil turns the JSON repair off.
	Format callformat.Format
	// Check accepts a recovered call: a known tool whose arguments
	// validate (Validates gives one from a validate.Validator). Nil turns
	// recovery off.
	Check func(chat.ToolCall) error
	// NoRepair turns the JSON repair off.
	NoRepair bool
	// NoRecovery turns recovery off: calls outside the format stay
	// content.
	NoRecovery bool
}

// Fix returns p with repaired and recovered calls added, and each fix.
// raw is the reply's text and p what Format.Parse read from it. Calls the
// parser read stay first, in their order; repaired calls follow, then
// recovered ones, in text order. Recovered calls leave the content; an
// OutsideFormat problem goes when every candidate was taken.
func (f Fixer) Fix(raw string, p callformat.Parsed) (callformat.Parsed, []Fix) {
	var fixes []Fix
	if !f.NoRepair && f.Format != nil {
		p, fixes = f.repairJSON(raw, p)
	}
	if !f.NoRecovery && f.Check != nil {
		var more []Fix
		p, more = f.recoverCalls(p)
		fixes = append(fixes, more...)
	}
	return p, fixes
}

// repairJSON repairs, one object at a time, the JSON objects of raw, and
// keeps a repair when the format then reads more calls from the text. A
// truncated object is never repaired.
func (f Fixer) repairJSON(raw string, p callformat.Parsed) (callformat.Parsed, []Fix) {
	if !hasCallProblem(p) {
		return p, nil
	}
	var fixes []Fix
	text := raw
	work := workBudget(len(raw))
	for i := 0; i < len(text) && work > 0; {
		j := strings.IndexByte(text[i:], '{')
		if j < 0 {
			break
		}
		start := i + j
		s := scan(text, start)
		work -= s.end - start
		if s.truncated {
			i = start + 1
			continue
		}
		out := s.out.String()
		i = s.end
		if len(s.repairs) == 0 || !json.Valid([]byte(out)) {
			continue
		}
		candidate := text[:start] + out + text[s.end:]
		q := f.Format.Parse(candidate)
		work -= len(candidate)
		added := newCalls(p.Calls, q.Calls)
		if len(added) == 0 || len(newCalls(q.Calls, p.Calls)) > 0 {
			continue // no new call, or a call the parser read is gone
		}
		for _, c := range added {
			fixes = append(fixes, Fix{Kind: KindJSON, Call: c, Repairs: s.repairs})
		}
		text, p, i = candidate, q, start+len(out)
	}
	return p, fixes
}

// workBudget bounds the bytes the JSON repair scans and parses for a text
// of n bytes: a reply is read a few times over, and text made of
// thousands of unclosed objects does not take quadratic time.
func workBudget(n int) int { return 16*n + 1<<16 }

// hasCallProblem reports whether the parser found a call it could not
// read.
func hasCallProblem(p callformat.Parsed) bool {
	for _, pr := range p.Problems {
		if pr.Kind != callformat.OutsideFormat {
			return true
		}
	}
	return false
}

// newCalls returns the calls of after that before does not have, counting
// equal calls.
func newCalls(before, after []chat.ToolCall) []chat.ToolCall {
	seen := map[string]int{}
	for _, c := range before {
		seen[callKey(c)]++
	}
	var out []chat.ToolCall
	for _, c := range after {
		if k := callKey(c); seen[k] > 0 {
			seen[k]--
		} else {
			out = append(out, c)
		}
	}
	return out
}

func callKey(c chat.ToolCall) string { return c.Function.Name + "\x00" + c.Function.Arguments }

// Validates returns a Check that accepts a call v finds nothing wrong
// with: a known tool, arguments that are a JSON object and match its
// schema. The error is the first violation.
func Validates(v *validate.Validator) func(chat.ToolCall) error {
	return func(c chat.ToolCall) error {
		c.ID = "recovered"
		for _, viol := range v.Validate(validate.Reply{FinishReason: "stop", Calls: []chat.ToolCall{c}}) {
			return errors.New(viol.Message)
		}
		return nil
	}
}
