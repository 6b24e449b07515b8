package loop

import (
	"context"
	"regexp"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/gate"
	"github.com/loopagent/loop/agent/loopguard"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/paths"
	"github.com/loopagent/loop/agent/repair"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/grammar"
)

// guards are the reliability layer: values that newGuards builds once
// from Settings.Guards, each with one method for the stage of a step it
// watches. A guard that is off is not in its list. step.go applies them
// in this order:
//
//	request   force (tool_choice), paths (the grammar's file names)
//	reply     cut off, repair and recovery, readable, valid, copies
//	bad reply retry (the error goes back, within a budget)
//	result    loop (repeats, cycles, one result for every call)
//	answer    gate (the check after an edit, the change a task asks)
type guards struct {
	force   *force // also told of the task and of the gate's request
	request []requestGuard
	reply   []replyGuard
	retry   *retrier // nil: the first bad reply ends the run
	result  []resultGuard
	answer  []answerGuard
}

// requestGuard shapes a request before it goes to the model.
type requestGuard interface {
	shape(ctx context.Context, a *Agent, req *model.Request)
}

// replyGuard checks a reply before anything runs; it refuses it by
// marking the turn bad. The first refusal ends the checks.
type replyGuard interface {
	check(a *Agent, t *turn)
}

// resultGuard watches each executed call's result, and whether the call
// changed files: it may add a note for the model, or stop the run.
type resultGuard interface {
	observe(a *Agent, c *chat.ToolCall, content string, changed bool) (note string, stop bool)
}

// answerGuard judges a final answer: a note sends the model back to work
// (with the tool_choice of its next step), an outcome ends the run.
type answerGuard interface {
	judge(a *Agent) (note string, next forceChoice, end *Outcome)
}

// newGuards builds the guards of c: every one on, except those its
// Guards turn off and those with nothing to do (the paths without a
// grammar, the copy check without examples).
func newGuards(c config) guards {
	g := c.Guards
	var out guards
	if !g.NoForce {
		out.force = &force{}
		out.request = append(out.request, out.force)
	}
	if !g.NoPaths && !c.NoGrammar {
		out.request = append(out.request, narrowPaths{})
	}
	out.reply = append(out.reply, cutOff{})
	if !g.NoRepair || !g.NoRecover {
		out.reply = append(out.reply, fixCalls{repair: !g.NoRepair, recover: !g.NoRecover})
	}
	out.reply = append(out.reply, readable{}, valid{})
	if len(c.FewShot) > 0 {
		out.reply = append(out.reply, copies{})
	}
	if n := g.retries(); n > 0 {
		out.retry = &retrier{budget: n, prune: g.PruneRetries}
	}
	if !g.NoLoopGuard {
		out.result = append(out.result, &loopGuard{d: loopguard.Detector{Repeats: g.LoopRepeats, Cycles: g.LoopCycles}})
	}
	if !g.NoGate {
		out.answer = append(out.answer, gateGuard{})
	}
	return out
}

// forceChoice is the tool_choice of one request: auto, a required call,
// or a named tool.
type forceChoice struct {
	mode grammar.ChoiceMode
	tool string
}

// force sets the tool_choice of the next request: required on the first
// step of a task that names a file (its first step must act), and the
// shell after the gate asked for the check. Each holds for one request:
// a run whose every step requires a call can never end.
type force struct{ next forceChoice }

// namesFile matches a task that names a file (a path with a source, build
// or text file's extension). "e.g." and "v1.2" are not files.
var namesFile = regexp.MustCompile(`(^|[\s"'(])[\w.-]*[\w-](/[\w.-]+)*\.(go|mod|py|js|jsx|ts|tsx|java|kt|rs|c|h|cc|cpp|hpp|cs|rb|php|swift|scala|sh|md|txt|json|yaml|yml|toml|xml|html|css|sql|gradle|proto|lock|cfg|ini|env)\b`)

// task sets the first request's choice for a task.
func (f *force) task(task string) {
	f.next = forceChoice{}
	if namesFile.MatchString(task) {
		f.next = forceChoice{mode: grammar.ChoiceRequired}
	}
}

func (f *force) shape(_ context.Context, _ *Agent, req *model.Request) {
	req.ToolChoice = grammar.Choice{Mode: f.next.mode, Function: f.next.tool}
	f.next = forceChoice{}
}

// narrowPaths makes the file arguments of read_file and edit_file one of
// the workspace's files in the call grammar, listed again before every
// request, and an edit's text one the model has read (agent/paths).
type narrowPaths struct{}

func (narrowPaths) shape(ctx context.Context, a *Agent, req *model.Request) {
	req.GrammarTools = paths.Narrow(ctx, a.tools, a.cfg.tools, a.cfg.ws, a.read)
}

// loopGuard detects loops (agent/loopguard): a note on the first
// detection, a stop on the next.
type loopGuard struct{ d loopguard.Detector }

// observe checks a result; a call that changed files starts new work,
// which later steps are not repeats of.
func (g *loopGuard) observe(_ *Agent, c *chat.ToolCall, content string, changed bool) (string, bool) {
	v := g.d.Check(*c, content)
	if changed {
		g.d.Changed()
	}
	switch v {
	case loopguard.Warn:
		return g.d.Note(), false
	case loopguard.Stop:
		return "", true
	}
	return "", false
}

// gateGuard is the verification gate (agent/gate): a final answer after
// an edit with no passing check since is not done, so it asks once for
// the check and makes the next step run a command; before any edit, on
// a task that asks for a change, it reminds the model of the change
// once, and while the check fails it sends the model back to fix it
// (gate.MaxFixAsks times); an answer again without the check, or after
// it failed, ends the run unverified.
type gateGuard struct{}

func (gateGuard) judge(a *Agent) (string, forceChoice, *Outcome) {
	switch a.gate.Answer() {
	case gate.AskChange:
		return a.gate.AskChangeText(), forceChoice{}, nil
	case gate.AskFix:
		return a.gate.AskFixText(), forceChoice{}, nil
	case gate.Ask:
		return a.gate.AskText(), forceChoice{mode: grammar.ChoiceFunction, tool: "shell"}, nil
	case gate.Unverified:
		reason := "answered again without running " + a.checkName()
		if a.gate.FailsNow() {
			reason = "answered while " + a.checkName() + " fails"
		}
		out := a.end(Unverified, reason, nil)
		return "", forceChoice{}, &out
	case gate.Accept:
		// A passing check verifies nothing when nothing was changed.
		if a.gate.Unchanged() && !a.gate.Failing() {
			out := a.end(Done, "the task asks for a change and nothing was edited", nil)
			return "", forceChoice{}, &out
		}
	}
	return "", forceChoice{}, nil
}

// retrier sends a bad reply back with its error while the budget of bad
// replies in a row lasts; with prune, the failed attempts and their
// errors leave the history once a corrected call has run (a shorter
// history, but the prompt cache recomputes what followed them).
type retrier struct {
	budget int
	prune  bool
}

// emitFix reports one repair or recovery.
func (a *Agent) emitFix(f repair.Fix) {
	call := f.Call
	a.emit(transcript.Event{Kind: transcript.KindRepair, Reason: string(f.Kind), Repairs: f.Repairs, Call: &call})
}
