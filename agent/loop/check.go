package loop

import (
	"fmt"
	"os"
	"strings"

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
	parsed   chat.Parsed // after repair and recovery
	calls    []chat.ToolCall
	fixes    []repair.Fix
	bad      string         // one of the bad* reasons, or "" when the reply is usable
	errMsg   string         // what goes back to the model about a bad reply
	toolErrs map[int]string // per call, for a bad reply whose calls parsed
}

// check applies the first stages of the pipeline to a reply: the finish
// reason, then repair and recovery, then validation and the count of
// calls. Truncation is never repaired: a call the token limit cut never
// runs.
func (a *Agent) check(resp *model.Response) turn {
	t := turn{resp: resp, parsed: resp.Parsed}
	if resp.FinishReason == "length" {
		t.bad = badCutOff
		t.errMsg = fmt.Sprintf("Your reply was cut off at the limit of %d tokens, so nothing ran. Write it again, shorter; the next reply may use %d tokens.",
			a.sent, a.cfg.grownBudget(a.sent))
		return t
	}
	f, err := a.format(resp.Format)
	v, verr := a.validator, a.validatorErr
	if err == nil && verr == nil {
		fixer := repair.Fixer{Format: f, Check: repair.Validates(v), NoRepair: a.cfg.Guards.NoRepair, NoRecovery: a.cfg.Guards.NoRecover}
		if a.cfg.Guards.NoRepair {
			fixer.Format = nil
		}
		if a.cfg.Guards.NoRecover {
			fixer.Check = nil
		}
		t.parsed, t.fixes = fixer.Fix(resp.Text, resp.Parsed)
		for i := range t.parsed.Calls {
			if t.parsed.Calls[i].ID == "" {
				t.parsed.Calls[i].ID = f.NewID(nil)
			}
			if t.parsed.Calls[i].Type == "" {
				t.parsed.Calls[i].Type = "function"
			}
		}
	}
	t.calls = t.parsed.Calls
	a.recordFixes(t.fixes)
	if reason, msg := a.problems(t.parsed); reason != "" {
		t.bad, t.errMsg = reason, msg
		return t
	}
	if verr == nil {
		a.validate(&t, v)
	}
	if t.bad == "" {
		a.copyCheck(&t)
	}
	return t
}

// copyCheck refuses calls that copy a value from a few-shot example which
// the conversation never mentions (seed 000 Example 8): a small model
// that writes the example's path reads the wrong file.
func (a *Agent) copyCheck(t *turn) {
	if len(a.cfg.FewShot) == 0 {
		return
	}
	var seen strings.Builder
	for _, m := range a.history {
		seen.WriteString(m.Content)
		seen.WriteByte('\n')
	}
	for i, c := range t.calls {
		copies := a.cfg.FewShot.Copied(seen.String(), c)
		if len(copies) == 0 {
			continue
		}
		if t.toolErrs == nil {
			t.toolErrs = map[int]string{}
		}
		t.bad = badCopy
		var b strings.Builder
		for _, cp := range copies {
			fmt.Fprintf(&b, "The %s %q comes from an example, not from this task. ", cp.Argument, cp.Value)
		}
		b.WriteString("Nothing ran. Use the files and values of this task.")
		t.toolErrs[i] = b.String()
	}
}

// problems turns what the parser could not read into a reason and a
// message for the model.
func (a *Agent) problems(p chat.Parsed) (string, string) {
	for _, pr := range p.Problems {
		switch pr.Kind {
		case chat.Unterminated:
			return badCutOff, "Your call was not finished, so nothing ran: " + pr.Message + ". Write the whole call again."
		case chat.InvalidJSON, chat.NoName, chat.ArgsNotObject:
			return badJSON, "Your call could not be read, so nothing ran: " + pr.Message +
				". Write it again as a JSON object with \"name\" and \"arguments\", in the format the system prompt shows."
		case chat.OutsideFormat:
			if len(p.Calls) == 0 {
				return badFormat, "That call was written outside the tool-call format, so nothing ran. Write it again in the format the system prompt shows."
			}
		}
	}
	return "", ""
}

// validate checks the calls against their schemas and counts them.
func (a *Agent) validate(t *turn, v *chat.Validator) {
	if !a.cfg.ParallelToolCalls && len(t.calls) > 1 || a.cfg.MaxCalls > 0 && len(t.calls) > a.cfg.MaxCalls {
		most := max(a.cfg.MaxCalls, 1)
		t.bad = badCount
		t.errMsg = fmt.Sprintf("Your reply holds %d calls; send at most %d per reply, and read each result before the next call. Nothing ran.", len(t.calls), most)
		return
	}
	violations := v.Validate(chat.Reply{FinishReason: t.resp.FinishReason, Calls: t.calls})
	if len(violations) == 0 {
		return
	}
	byCall := map[int][]chat.Violation{}
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
			if vi.Check == chat.CheckUnknownTool {
				t.bad = badTool
			}
		}
		t.toolErrs[i] = retry.Feedback{Tools: a.tools}.Message(c, vs)
	}
}

// recordFixes counts and reports the repairs and recoveries of a reply.
func (a *Agent) recordFixes(fixes []repair.Fix) {
	for _, f := range fixes {
		if f.Refused != "" {
			continue
		}
		a.out.Repairs++
		call := f.Call
		a.emit(transcript.Event{Kind: transcript.KindRepair, Reason: string(f.Kind), Repairs: f.Repairs, Call: &call})
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

// classify labels the reply as the model wrote it, before repair, with the
// failure classifier of seed 000 Example 1, for the transcript and the
// run's statistics.
func (a *Agent) classify(t turn) {
	f, _ := a.format(t.resp.Format)
	v := a.validator
	c := classify.Classifier{Format: f, Validator: v, Exists: a.exists}
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

// format returns the call format of a reply, made once per name: the
// tools do not change during a run.
func (a *Agent) format(name string) (chat.Format, error) {
	if f, ok := a.formats[name]; ok {
		return f, nil
	}
	f, err := chat.NewFormat(name, a.tools)
	if err != nil {
		return nil, err
	}
	if a.formats == nil {
		a.formats = map[string]chat.Format{}
	}
	a.formats[name] = f
	return f, nil
}
