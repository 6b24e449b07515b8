// Package classify names what is wrong with one model reply, from a
// catalog of the ways small models fail at tool calls. Each kind has its
// own remedy (Kind.Remedy), and the agent labels every step with one, in
// the transcript and in the run's statistics.
//
// A Classifier checks in a fixed order, because a later check means
// nothing when an earlier one fails (argument names of a call that does
// not parse):
//
//  1. Is a call present? If not: something like a call outside the format
//     (OutsideFormat), or text only (TextOnly).
//  2. Was it cut off? finish_reason "length" (CutOff): never run it.
//  3. Does it parse? (InvalidJSON)
//  4. Does the tool exist? (UnknownTool)
//  5. Are the arguments right? (MissingArgument, then WrongType, then
//     UnknownArgument: loop's validator refuses an argument the schema
//     does not declare, where a lenient JSON binding would drop it
//     silently)
//  6. Is it the previous step's call again? (Repeat)
//  7. Does its path exist? (PathMissing: the tool's own error result)
//  8. Otherwise OK.
//
// It reads any format's parsed output. Give it the raw text and, if the
// agent parsed it already, the callformat.Parsed; else it parses with Format:
//
//	c := classify.Classifier{Format: format, Validator: v, Exists: workspace.Exists}
//	kind := c.Classify(classify.Reply{Text: raw, FinishReason: resp.FinishReason,
//		Parsed: &parsed, Previous: prev})
//	prev = classify.Signature(parsed.Calls)
//
// Classify labels the reply as the model wrote it: run it before the
// repair step, so that a repaired call still counts as invalid JSON.
//
// The catalog and the remedies' words, example numbers included, come
// from the project's specification (../shared/seeds); the tests compare
// with them.
package classify

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/loopguard"
)

// Reply is one model reply.
type Reply struct {
	// Text is the reply as the model wrote it.
	Text string
	// FinishReason is why the model stopped: "stop", "length", ...
	FinishReason string
	// Parsed is what the format's parser read from Text; nil parses Text
	// with the Classifier's Format.
	Parsed *callformat.Parsed
	// Previous is Signature of the previous step's calls; empty when
	// there was none.
	Previous string
}

// Classifier labels replies. The zero value parses Hermes and checks
// neither tools nor paths. It is safe for concurrent use when its Format
// and Exists are.
type Classifier struct {
	// Format parses Reply.Text when Reply.Parsed is nil; nil means Hermes.
	Format callformat.Format
	// Validator holds the tools' schemas; nil skips the tool and argument
	// checks.
	Validator *validate.Validator
	// Exists reports whether a path exists in the workspace; nil skips
	// the path check. A call's "path" argument is checked.
	Exists func(path string) bool
	// NewFiles are the tools whose path need not exist yet; nil means
	// write_file.
	NewFiles []string
}

// callProblems are the parser's problems that mean a call was there.
var callProblems = []callformat.ProblemKind{callformat.Unterminated, callformat.InvalidJSON, callformat.NoName, callformat.ArgsNotObject, callformat.Malformed}

// Classify names what is wrong with a reply, or OK.
func (c Classifier) Classify(r Reply) Kind {
	p := c.parse(r)
	if len(p.Calls) == 0 && !hasProblem(p, callProblems...) {
		if hasProblem(p, callformat.OutsideFormat) || strings.Contains(p.Content, `"name"`) {
			return OutsideFormat
		}
		return TextOnly
	}
	if r.FinishReason == "length" {
		return CutOff
	}
	if hasProblem(p, callProblems...) {
		return InvalidJSON
	}
	if k := c.arguments(p.Calls); k != OK {
		return k
	}
	if r.Previous != "" && Signature(p.Calls) == r.Previous {
		return Repeat
	}
	if c.pathMissing(p.Calls) {
		return PathMissing
	}
	return OK
}

func (c Classifier) parse(r Reply) callformat.Parsed {
	if r.Parsed != nil {
		return *r.Parsed
	}
	f := c.Format
	if f == nil {
		f, _ = callformat.New("hermes", nil)
	}
	return f.Parse(r.Text)
}

func hasProblem(p callformat.Parsed, kinds ...callformat.ProblemKind) bool {
	for _, pr := range p.Problems {
		if slices.Contains(kinds, pr.Kind) {
			return true
		}
	}
	return false
}

// checkKinds maps the validator's checks to kinds, in the order of the
// catalog: the first check any call fails decides.
var checkKinds = []struct {
	check validate.Check
	kind  Kind
}{
	{validate.CheckUnknownTool, UnknownTool},
	{validate.CheckInvalidJSON, InvalidJSON},
	{validate.CheckNotObject, InvalidJSON},
	{validate.CheckMissingArgument, MissingArgument},
	{validate.CheckSchema, WrongType},
	{validate.CheckUnknownArgument, UnknownArgument},
}

// arguments checks the calls' tools and arguments against the schemas.
func (c Classifier) arguments(calls []chat.ToolCall) Kind {
	if c.Validator == nil {
		return OK
	}
	withIDs := make([]chat.ToolCall, len(calls))
	for i, call := range calls {
		call.ID = fmt.Sprintf("call%d", i) // ids are the agent's business, not the model's
		withIDs[i] = call
	}
	violations := c.Validator.Validate(validate.Reply{FinishReason: "stop", Calls: withIDs})
	for _, ck := range checkKinds {
		for _, v := range violations {
			if v.Check == ck.check {
				return ck.kind
			}
		}
	}
	return OK
}

// pathMissing reports whether a call's "path" argument names a path that
// does not exist, for tools not in NewFiles.
func (c Classifier) pathMissing(calls []chat.ToolCall) bool {
	if c.Exists == nil {
		return false
	}
	newFiles := c.NewFiles
	if newFiles == nil {
		newFiles = []string{"write_file"}
	}
	for _, call := range calls {
		if slices.Contains(newFiles, call.Function.Name) {
			continue
		}
		if path, ok := stringArgument(call.Function.Arguments, "path"); ok && !c.Exists(path) {
			return true
		}
	}
	return false
}

// Signature identifies a step's calls for the repeat check: each call's
// name and canonical arguments (keys sorted, no white space), one per
// line. It is empty for no calls.
func Signature(calls []chat.ToolCall) string {
	lines := make([]string, len(calls))
	for i, call := range calls {
		lines[i] = call.Function.Name + loopguard.Canonical(call.Function.Arguments)
	}
	return strings.Join(lines, "\n")
}

// stringArgument returns the string argument key of JSON arguments.
func stringArgument(arguments, key string) (string, bool) {
	var args map[string]json.RawMessage
	if json.Unmarshal([]byte(arguments), &args) != nil {
		return "", false
	}
	var s string
	if raw, ok := args[key]; !ok || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}
