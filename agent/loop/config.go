package loop

import (
	"encoding/json"
	"time"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/fewshot"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/agent/window"
	"github.com/loopagent/loop/sampler"
)

// Config configures an Agent. Its zero value, given a Model, Tools and a
// Workspace, is the whole reliability layer with the documented defaults.
type Config struct {
	// Model answers the requests: the in-process client or a script.
	Model model.Model
	// Tools are the tools offered to the model.
	Tools *tools.Set
	// Workspace is where the tools work.
	Workspace *tools.Workspace
	// System is the system prompt; empty means DefaultSystem.
	System string
	// FewShot are examples placed right after the system prompt, where
	// they never change and so stay in the prompt cache (seed 000 Example
	// 8). A call that copies an example's value which the conversation
	// never mentions does not run: it goes back as a bad reply ("copied").
	FewShot fewshot.Shots

	// MaxSteps bounds the model requests of a Run; 0 means 30.
	MaxSteps int
	// MaxTokens bounds each reply; 0 means 1024. A call cut by it is asked
	// again with twice the budget.
	MaxTokens int
	// Timeout bounds the wall time of a Run; 0 means none.
	Timeout time.Duration

	// Context manages the history between the agent and the model
	// (agent/window): tool results capped on entry, the call/result
	// pairs checked before every request, compaction above the trigger,
	// and a typed error instead of an overflow. System and Pinned are
	// filled in by the agent; with a model.Counter, Counter and Measure
	// too (exact budgets). Nil means none: the history grows until the
	// model's context is full.
	Context *window.Config

	// Guards turns the reliability layer's parts off, one by one.
	Guards Guards
	// Check is the command that verifies a change; empty means the one
	// gate.DetectCheck finds in the workspace.
	Check string

	// Sampling is the sampler configuration of answers, and CallSampling
	// that of tool calls, from the moment a call starts. Nil means the
	// presets "prose" and "tool-call" (see sampler.Preset).
	Sampling, CallSampling *sampler.Config
	// Extra are template variables for every request.
	Extra json.RawMessage
	// Reasoning turns the model's reasoning on or off through its
	// template's switch, and ReasoningBudget caps it per reply (see
	// model.Request); the zero values keep the template's default, uncapped.
	Reasoning       model.Reasoning
	ReasoningBudget int
	// NoGrammar writes calls without the call grammar, and Format names
	// the call format instead of the model's own ("prompt": the tools
	// described in the system prompt); see model.Request.
	NoGrammar bool
	Format    string
	// ParallelToolCalls lets a reply carry several calls; MaxCalls caps
	// them (0: no cap beyond the grammar's).
	ParallelToolCalls bool
	MaxCalls          int

	// Sink receives every event of the run; nil discards them.
	Sink transcript.Sink
	// OnDelta receives the model's reply as it streams, with its step.
	OnDelta func(step int, d chat.Delta)
	// OnPrefill hears how far a step's prompt prefill is.
	OnPrefill func(step, done, total int)
}

// Guards says which parts of the reliability layer run. The zero value
// runs all of them; `loop eval` compares configurations that turn them
// off.
type Guards struct {
	// NoRepair turns off the JSON repair of calls.
	NoRepair bool
	// NoRecover leaves calls written outside the format as content.
	NoRecover bool
	// Retries is how many bad replies in a row are sent back with an
	// error before the run gives up; 0 means 2, negative none.
	Retries int
	// PruneRetries removes a failed attempt and its error from the
	// history once a corrected call has run (shorter history, but the
	// prompt cache recomputes what follows them).
	PruneRetries bool
	// NoLoopGuard turns off loop detection; LoopRepeats and LoopCycles
	// are its thresholds (0: 3 identical steps, 2 two-step cycles).
	NoLoopGuard             bool
	LoopRepeats, LoopCycles int
	// NoGate accepts a final answer after an unverified edit (the run
	// then ends "unverified" instead of asking for the check).
	NoGate bool
	// NoPaths leaves the file arguments of read_file and edit_file free in
	// the call grammar; by default they are one of the workspace's files
	// (agent/paths), listed again before every request.
	NoPaths bool
	// NoForce keeps tool_choice auto on every step: no required first
	// step for a task that names a file, no forced check after a refused
	// answer.
	NoForce bool
}

// DefaultSystem is the system prompt of a coding agent on a small model:
// short, and without anything that changes between requests, so that it
// stays in the prompt cache.
const DefaultSystem = `You are loop, a coding agent working in a repository on the user's machine.
Use the tools to read files, edit them and run commands. Call one tool at a time and read its result before the next.
Make the smallest change that does the task. After changing code, run the tests. Answer briefly when the task is done.`

func (c Config) maxSteps() int  { return orDefault(c.MaxSteps, 30) }
func (c Config) maxTokens() int { return orDefault(c.MaxTokens, 1024) }

func (g Guards) retries() int {
	switch {
	case g.Retries < 0:
		return 0
	case g.Retries == 0:
		return 2
	}
	return g.Retries
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
