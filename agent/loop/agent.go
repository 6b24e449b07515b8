package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/gate"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/agent/window"
)

// Agent runs tasks with one model on one workspace, keeping the
// conversation between Runs. It is not safe for concurrent use.
type Agent struct {
	cfg        config
	tools      []chat.Tool
	gate       *gate.Gate
	guards     guards
	sink       transcript.Sink
	window     *window.Manager   // holds the conversation; manages it unless Settings.NoContext
	corrected  *window.Corrected // the window's measure without a tokenizer: estimates corrected by prompt_tokens
	read       []string          // the files read_file has shown, for agent/paths
	warnings   []string          // what New left out of the system prompt, and why
	setup      Setup             // what New assembled
	ids        map[string]bool   // the call ids of the conversation
	broken     error             // the conversation refused a message
	lastPrompt string            // the last request's rendered prompt
	recorded   []chat.Message    // the history as the last history event left it
	aside      string            // goes before the next task in its message (Aside)

	// Built once: every tool, and the tools of a question (none that
	// writes files). Run offers one of them to each task.
	allTools, questionTools toolSet
	validator               *validate.Validator // of the task's tools
	validatorErr            error

	// per Run
	out       Outcome
	step      int
	retries   int    // bad replies in a row
	pending   []int  // history indices of failed attempts, for PruneRetries
	maxTokens int    // budget of the next request
	sent      int    // budget of the last request sent
	prevCall  string // canonical signature of the last executed call
}

// Check returns the command the gate takes as verification ("" when none
// was given or found: then any recognised test command counts).
func (a *Agent) Check() string { return a.gate.Check }

// Warnings says what New left out of the system prompt because it could
// not be read (an instruction file, the repository map), and why.
func (a *Agent) Warnings() []string { return a.warnings }

// Workspace is the workspace the tools work in.
func (a *Agent) Workspace() *tools.Workspace { return a.cfg.ws }

// Setup says what New assembled around the model.
func (a *Agent) Setup() Setup { return a.setup }

// Messages returns the conversation as the next request sends it: the
// system prompt, the few-shot examples and the history.
func (a *Agent) Messages() []chat.Message { return a.messages() }

// Definitions returns the definitions of the tools the agent offers, as
// every request sends them.
func (a *Agent) Definitions() json.RawMessage { return a.cfg.tools.Definitions() }

// History returns the conversation after the system prompt.
func (a *Agent) History() []chat.Message { return a.window.History()[1+len(a.cfg.FewShot.Messages()):] }

// Run gives the agent a task (or, in a conversation, the next instruction)
// and runs steps until it ends. The outcome says how.
func (a *Agent) Run(ctx context.Context, task string) Outcome { return a.work(ctx, task, true) }

// Continue runs steps on the conversation as it stands, without a new
// message: a session whose last run stopped before its end (killed, the
// step limit) goes on with task, the task that run had, which the
// guards and the gate judge by.
func (a *Agent) Continue(ctx context.Context, task string) Outcome { return a.work(ctx, task, false) }

func (a *Agent) work(ctx context.Context, task string, add bool) Outcome {
	start := time.Now()
	if a.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.cfg.Timeout)
		defer cancel()
	}
	a.out = Outcome{Classes: map[string]int{}}
	a.step, a.retries, a.pending = 0, 0, nil
	a.maxTokens = a.cfg.maxTokens()
	if a.guards.force != nil {
		a.guards.force.task(task)
	}
	a.gate.Task(task)
	a.useTools(a.allTools)
	if isQuestion(task) {
		a.useTools(a.questionTools)
	}
	reason := "continued"
	if add {
		a.add(chat.Message{Role: "user", Content: a.takeAside(task)})
		reason = ""
	}
	setup, _ := json.Marshal(a.setup)
	a.emit(transcript.Event{Kind: transcript.KindTask, Task: task, Workspace: a.cfg.ws.Root(), Detail: a.gate.Check, Settings: setup, Reason: reason})
	a.recordHistory()
	out := a.steps(ctx)
	out.Wall = time.Since(start)
	a.emit(transcript.Event{Kind: transcript.KindOutcome, Outcome: string(out.Kind), Reason: out.Reason, Detail: out.String()})
	return out
}

// steps runs steps until one ends the run.
func (a *Agent) steps(ctx context.Context) Outcome {
	for a.step < a.cfg.maxSteps() {
		if err := ctx.Err(); err != nil {
			return a.end(Cancelled, "", err)
		}
		a.step++
		out, done := a.runStep(ctx)
		a.stepEnded()
		if done {
			return out
		}
	}
	return a.end(StepLimit, fmt.Sprintf("%d requests", a.step), nil)
}

// end fills the outcome's kind.
func (a *Agent) end(k Kind, reason string, err error) Outcome {
	out := a.out
	out.Kind, out.Reason, out.Err = k, reason, err
	return out
}

func (a *Agent) emit(e transcript.Event) {
	if e.Step == 0 {
		e.Step = a.step
	}
	a.sink.Emit(e)
}

// useTools offers ts to the requests of this task.
func (a *Agent) useTools(ts toolSet) {
	a.tools, a.validator, a.validatorErr = ts.defs, ts.validator, ts.err
}
