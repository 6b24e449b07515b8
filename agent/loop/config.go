package loop

import (
	"encoding/json"
	"time"

	"github.com/loopagent/loop/agent/callformat"
	"github.com/loopagent/loop/agent/chat"

	"github.com/loopagent/loop/agent/fewshot"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/agent/window"
)

// Settings configure an agent: its workspace, what New assembles around
// the model (tools, system prompt, context manager, subagent) and how it
// runs. The zero value, given a Dir, is `loop run`'s default agent: the
// whole reliability layer, the six tools, the workspace's instruction
// files and, where the window plan has room, its repository map, context
// management, and the task tool on a model that can fork.
type Settings struct {
	// Dir is the workspace: the tools work inside it.
	Dir string
	// InstructionsRoot is where the instruction files' walk starts: they
	// load from it down to the workspace, the nearest last, as in a
	// repository whose root and packages each have an AGENTS.md. It must
	// hold the workspace; "" means the workspace alone.
	InstructionsRoot string
	// Workspace, when set, replaces the workspace made from Dir and
	// Limits (a subagent shares its parent's).
	Workspace *tools.Workspace
	// Limits configure the tools (tools.Config: the shell policy, the
	// sandbox, the caps); its Window is Window's when zero.
	Limits tools.Config
	// Window is the context window in tokens of a model that does not
	// say its own (model.Sized); 0 means 4096.
	Window int

	// Tools is "" or "large" for the six tools, "small" for read_file,
	// edit_file and shell. ToolSet, when set, replaces them.
	Tools   string
	ToolSet *tools.Set
	// MoreTools are offered after those, in order: an MCP server's tools
	// (agent/mcp), say. One whose schema the call grammar or the
	// validator cannot compile is left out with a warning
	// (Agent.Warnings), since one grammar holds every tool.
	MoreTools []tools.Tool
	// Todos offers the todos tool: the model keeps its plan, which goes
	// into compaction summaries.
	Todos bool
	// NoSubagent leaves out the task tool, which is offered when the
	// window plan searches by subagent and the model can fork
	// (model.Forker).
	NoSubagent bool
	// System replaces DefaultSystem; the instruction files and the
	// repository map still follow it.
	System string
	// NoInstructions loads no instruction files (AGENTS.md, CLAUDE.md,
	// ...); GlobalInstructions are the user's own, loaded first.
	NoInstructions     bool
	GlobalInstructions []string
	// NoRepoMap leaves the repository map out of the system prompt.
	NoRepoMap bool
	// FewShot are examples placed right after the system prompt, where
	// they never change and so stay in the prompt cache. A call that
	// copies an example's value which the conversation never mentions
	// does not run: it goes back as a bad reply ("copied").
	FewShot fewshot.Shots
	// History seeds the conversation with the messages of an earlier run
	// (a continued session, agent/session): they follow the few-shot
	// examples, and the first Run or Continue adds to them.
	History []chat.Message

	// NoContext turns context management off: no cap on entry, no
	// compaction; the run fails when the context is full. Context, when
	// set, replaces the manager New builds from the window plan (tool
	// results capped on entry, the call/result pairs checked before
	// every request, compaction above the trigger, a typed error instead
	// of an overflow); its empty fields are filled in as for the default.
	NoContext bool
	Context   *window.Config

	// MaxSteps bounds the model requests of a Run; 0 means 30.
	MaxSteps int
	// MaxTokens bounds each reply; 0 means 1024. A reply cut by it is
	// asked again with twice the budget it was cut at, up to eight times
	// MaxTokens.
	MaxTokens int
	// Timeout bounds the wall time of a Run; 0 means none.
	Timeout time.Duration
	// Guards turns the reliability layer's parts off, one by one.
	Guards Guards
	// Check is the command that verifies a change; empty means the one
	// gate.DetectCheck finds in the workspace.
	Check string

	// Sampling is what the model's sampler runs with: presets and the
	// user's settings, which the model resolves with its own keys. Its
	// zero value means model.Agent(user): the "prose" preset for answers
	// and "tool-call" for calls, under any User settings it holds.
	Sampling model.Sampling
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
	OnDelta func(step int, d callformat.Delta)
	// OnPrefill hears how far a step's prompt prefill is.
	OnPrefill func(step, done, total int)
	// OnStepEnd is called at the end of each step, after its events: a
	// session saves the model's KV state there.
	OnStepEnd func(step int)
}

// config is what New assembled: the settings, the model and the parts
// built around it.
type config struct {
	Settings
	model   model.Model
	tools   *tools.Set
	ws      *tools.Workspace
	system  string         // the whole system prompt
	context *window.Config // nil: no context management
	todos   *tools.Todos   // the todos tool, when offered
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
	// AllTools offers every tool to every task; by default a question
	// that asks for no change is offered no tool that writes files.
	AllTools bool
	// NoForce keeps tool_choice auto on every step: no required first
	// step for a task that names a file, no forced check after a refused
	// answer.
	NoForce bool
	// NoSyntaxCheck lets edit_file and write_file break the syntax of a Go
	// or JSON file, or a Go directory's one package (tools.Config.NoSyntaxCheck);
	// by default such a write is refused and the file stays as it was. It applies to the
	// workspace New opens, not to Settings.Workspace.
	NoSyntaxCheck bool
}

// DefaultSystem is the system prompt of a coding agent on a small model:
// short, and without anything that changes between requests, so that it
// stays in the prompt cache.
const DefaultSystem = `You are loop, a coding agent working in a repository on the user's machine.
Use the tools to read files, edit them and run commands. Call one tool at a time and read its result before the next.
Make the smallest change that does the task. After changing code, run the tests. Answer briefly when the task is done.`

func (c config) maxSteps() int { return orDefault(c.MaxSteps, 30) }

// sampling is Sampling with the agent's presets where none is named.
func (c config) sampling() model.Sampling {
	s := c.Sampling
	if s.Preset == "" && s.CallPreset == "" {
		return model.Agent(s.User)
	}
	return s
}
func (c config) maxTokens() int { return orDefault(c.MaxTokens, 1024) }

// grownBudget is the budget of the retry of a reply cut off at used
// tokens: twice that, up to eight times the configured budget, so that
// a reply that is long for a reason gets room and a runaway one does
// not fill the context.
func (c config) grownBudget(used int) int { return min(2*used, 8*c.maxTokens()) }

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
