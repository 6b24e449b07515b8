package loop

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/classify"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/repair"
	"github.com/loopagent/loop/agent/retry"
	"github.com/loopagent/loop/agent/transcript"
)

// Reasons a reply is not used.
const (
	badCutOff = "cut off" // the token limit cut the reply
	badJSON   = "json"    // a call that does not parse
	badTool   = "tool"    // a call of a tool that does not exist
	badArgs   = "args"    // arguments that do not fit the schema
	badCount  = "count"   // more calls than a reply may carry
	badFormat = "format"  // a call written outside the format, not recovered
	badCopy   = "copied"  // a call that copies a few-shot example's value
)

// turn is a checked reply: the calls that may run, or why none may.
type turn struct {
	resp     *model.Response
	parsed   callformat.Parsed // after repair and recovery
	calls    []chat.ToolCall
	fixes    []repair.Fix
	bad      string         // one of the bad* reasons, or "" when the reply is usable
	errMsg   string         // what goes back to the model about a bad reply
	toolErrs map[int]string // per call, for a bad reply whose calls parsed
}

// check applies the reply guards in order; the first that refuses the
// reply ends the checks.
func (a *Agent) check(resp *model.Response) turn {
	t := turn{resp: resp, parsed: resp.Parsed, calls: resp.Parsed.Calls}
	a.uniqueIDs(&t)
	for _, g := range a.guards.reply {
		if g.check(a, &t); t.bad != "" {
			break
		}
	}
	a.uniqueIDs(&t) // for the calls repair and recovery added
	return t
}

// uniqueIDs gives each call an id no other call of the conversation has:
// a call without one, or with one the model wrote again (an id of an
// earlier call, or twice in one reply), gets a new id of the format. Ids
// are the harness's bookkeeping, so a model's repeated id is never an
// error it has to correct.
func (a *Agent) uniqueIDs(t *turn) {
	seen := map[string]bool{}
	for i := range t.calls {
		c := &t.calls[i]
		for c.ID == "" || a.ids[c.ID] || seen[c.ID] {
			if t.resp.Calls != nil {
				c.ID = t.resp.Calls.NewID(nil)
			} else {
				c.ID = fmt.Sprintf("call_%d_%d", a.window.Len(), i)
			}
		}
		seen[c.ID] = true
	}
}

// cutOff refuses a reply the token limit cut: a cut call never runs, and
// truncation is never repaired.
type cutOff struct{}

func (cutOff) check(a *Agent, t *turn) {
	if t.resp.FinishReason == "length" {
		t.bad = badCutOff
		t.errMsg = fmt.Sprintf("Your reply was cut off at the limit of %d tokens, so nothing ran. Write it again, shorter; the next reply may use %d tokens.",
			a.sent, a.cfg.grownBudget(a.sent))
	}
}

// fixCalls repairs the JSON of the format's calls and recovers calls
// written outside the format (agent/repair), with the format the model
// used; a recovered call gets an id of that format.
type fixCalls struct{ repair, recover bool }

func (g fixCalls) check(a *Agent, t *turn) {
	f := t.resp.Calls
	if f == nil || a.validatorErr != nil {
		return
	}
	var fixer repair.Fixer
	if g.repair {
		fixer.Format = f
	}
	if g.recover {
		fixer.Check = repair.Validates(a.validator)
	}
	t.parsed, t.fixes = fixer.Fix(t.resp.Text, t.resp.Parsed)
	for i := range t.parsed.Calls {
		if t.parsed.Calls[i].ID == "" {
			t.parsed.Calls[i].ID = f.NewID(nil)
		}
		if t.parsed.Calls[i].Type == "" {
			t.parsed.Calls[i].Type = "function"
		}
	}
	t.calls = t.parsed.Calls
	for _, fx := range t.fixes {
		if fx.Refused == "" {
			a.out.Repairs++
			a.emitFix(fx)
		}
	}
}

// readable refuses a reply the parser could not read: a call not
// finished, broken JSON, or a call written outside the format and not
// recovered.
type readable struct{}

func (readable) check(_ *Agent, t *turn) {
	for _, pr := range t.parsed.Problems {
		switch pr.Kind {
		case callformat.Unterminated:
			t.bad, t.errMsg = badCutOff, "Your call was not finished, so nothing ran: "+pr.Message+". Write the whole call again."
			return
		case callformat.InvalidJSON, callformat.NoName, callformat.ArgsNotObject:
			t.bad, t.errMsg = badJSON, "Your call could not be read, so nothing ran: "+pr.Message+
				". Write it again as a JSON object with \"name\" and \"arguments\", in the format the system prompt shows."
			return
		case callformat.OutsideFormat:
			if len(t.parsed.Calls) == 0 {
				t.bad, t.errMsg = badFormat, "That call was written outside the tool-call format, so nothing ran. Write it again in the format the system prompt shows."
				return
			}
		}
	}
}

// valid counts the calls and checks them against their schemas. The
// model's validation of the calls it parsed stands when nothing was
// repaired or recovered; fixed calls are validated here.
type valid struct{}

func (valid) check(a *Agent, t *turn) {
	if !a.cfg.ParallelToolCalls && len(t.calls) > 1 || a.cfg.MaxCalls > 0 && len(t.calls) > a.cfg.MaxCalls {
		t.bad = badCount
		t.errMsg = fmt.Sprintf("Your reply holds %d calls; send at most %d per reply, and read each result before the next call. Nothing ran.",
			len(t.calls), max(a.cfg.MaxCalls, 1))
		return
	}
	violations := t.resp.Violations
	if len(t.fixes) > 0 || t.resp.Calls == nil {
		if a.validatorErr != nil {
			return
		}
		violations = a.validator.Validate(validate.Reply{FinishReason: t.resp.FinishReason, Calls: t.calls})
	}
	// uniqueIDs has given every call an id of its own already.
	violations = slices.DeleteFunc(slices.Clone(violations), func(v validate.Violation) bool {
		return v.Check == validate.CheckEmptyID || v.Check == validate.CheckDuplicateID
	})
	if len(violations) == 0 {
		return
	}
	byCall := map[int][]validate.Violation{}
	for _, vi := range violations {
		byCall[vi.Call] = append(byCall[vi.Call], vi)
	}
	t.toolErrs = map[int]string{}
	t.bad = badArgs
	for i, c := range t.calls {
		vs := byCall[i]
		if len(vs) == 0 {
			continue
		}
		for _, vi := range vs {
			if vi.Check == validate.CheckUnknownTool {
				t.bad = badTool
			}
		}
		t.toolErrs[i] = retry.Feedback{Tools: a.tools}.Message(c, vs)
	}
}

// copies refuses calls that copy a value from a few-shot example which
// the conversation never mentions: a small model that writes the
// example's path reads the wrong file.
type copies struct{}

func (copies) check(a *Agent, t *turn) {
	var seen strings.Builder
	for _, m := range a.History() {
		seen.WriteString(m.Content)
		seen.WriteByte('\n')
	}
	for i, c := range t.calls {
		found := a.cfg.FewShot.Copied(seen.String(), c)
		if len(found) == 0 {
			continue
		}
		if t.toolErrs == nil {
			t.toolErrs = map[int]string{}
		}
		t.bad = badCopy
		var b strings.Builder
		for _, cp := range found {
			fmt.Fprintf(&b, "The %s %q comes from an example, not from this task. ", cp.Argument, cp.Value)
		}
		b.WriteString("Nothing ran. Use the files and values of this task.")
		t.toolErrs[i] = b.String()
	}
}

// errorFor is the message of a bad reply as a whole.
func (t turn) errorFor() string {
	if t.errMsg != "" {
		return t.errMsg
	}
	var parts []string
	for _, m := range t.toolErrs {
		parts = append(parts, m)
	}
	return strings.Join(parts, "\n")
}

// classify labels the reply as the model wrote it, before repair, with
// package classify's failure kinds, for the transcript and the run's
// statistics.
func (a *Agent) classify(t turn) {
	c := classify.Classifier{Format: t.resp.Calls, Validator: a.validator, Exists: a.exists}
	parsed := t.resp.Parsed
	k := c.Classify(classify.Reply{Text: t.resp.Text, FinishReason: t.resp.FinishReason, Parsed: &parsed, Previous: a.prevCall})
	a.prevCall = classify.Signature(parsed.Calls)
	a.out.Classes[string(k)]++
	a.emit(transcript.Event{Kind: transcript.KindClass, Class: string(k), Detail: k.Remedy()})
}

// exists reports whether a path exists in the workspace.
func (a *Agent) exists(path string) bool {
	p, err := a.cfg.ws.Resolve(path)
	if err != nil {
		return false
	}
	_, err = os.Stat(p)
	return err == nil
}
