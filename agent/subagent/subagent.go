// Package subagent is the task tool: a second agent loop with its own
// history, read-only tools and its own slot, whose final answer alone
// goes back to the parent (seed 002 Example 10). The parent's history
// then holds the task call and a short result instead of the search
// output, a saving that repeats on every later request. The cost is the
// subagent's own model requests, and the risk that its answer leaves out
// a detail: a precise prompt with a required answer format lowers it.
package subagent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/agent/window"
)

// Name is the tool's name.
const Name = "task"

//go:embed task.md
var description string

const schema = `{"type": "object", "properties": {"prompt": {"type": "string", "minLength": 1, "description": "What to find and how to answer"}}, "required": ["prompt"]}`

// System is the subagent's system prompt.
const System = `You are a search helper of a coding agent. Use the read-only tools to find what the task asks in the workspace, then answer in one or two sentences with file names and line numbers. Do not change anything.`

// Tool is the task tool. It is not read-only for the agent's dispatch,
// although it changes no file: it uses the model, so two task calls never
// run side by side.
type Tool struct {
	// Model returns the model of one task (the in-process client's Sub:
	// its own slot) and the function that releases it.
	Model func() (model.Model, func() error, error)
	// Tools are the subagent's tools; nil means read_file, grep and
	// list_files.
	Tools *tools.Set
	// MaxSteps bounds the subagent's requests; 0 means 8.
	MaxSteps int
	// MaxTokens bounds each of its replies; 0 means 512.
	MaxTokens int
	// Context is its context management (a copy per task); nil means
	// none.
	Context *window.Config
	// Sink receives the subagent's events; nil discards them.
	Sink transcript.Sink
}

// Params are the task tool's arguments.
type Params struct {
	Prompt string `json:"prompt"`
}

func (Tool) Name() string            { return Name }
func (Tool) Description() string     { return strings.TrimSpace(description) }
func (Tool) Schema() json.RawMessage { return json.RawMessage(schema) }
func (Tool) ReadOnly() bool          { return false }

// Run runs one task to its end and returns the subagent's answer. A task
// that ends without one (step limit, bad replies) is an error result that
// says how it ended.
func (t Tool) Run(ctx context.Context, ws *tools.Workspace, args json.RawMessage) (tools.Result, error) {
	var p Params
	if err := json.Unmarshal(args, &p); err != nil || strings.TrimSpace(p.Prompt) == "" {
		return tools.Result{Content: `task: want {"prompt": "what to find and how to answer"}`, IsError: true}, nil
	}
	if t.Model == nil {
		return tools.Result{}, fmt.Errorf("subagent: Tool.Model is not set")
	}
	m, release, err := t.Model()
	if err != nil {
		return tools.Result{}, fmt.Errorf("subagent: %w", err)
	}
	out, err := t.run(ctx, ws, m, p.Prompt)
	if rerr := release(); err == nil {
		err = rerr
	}
	if err != nil {
		return tools.Result{}, fmt.Errorf("subagent: %w", err)
	}
	if out.Kind != loop.Done && out.Kind != loop.Verified {
		return tools.Result{Content: "The task ended without an answer: " + out.String(), IsError: true}, nil
	}
	return tools.Result{Content: strings.TrimSpace(out.Answer)}, nil
}

func (t Tool) run(ctx context.Context, ws *tools.Workspace, m model.Model, prompt string) (loop.Outcome, error) {
	set := t.Tools
	if set == nil {
		var err error
		if set, err = tools.Default().Subset(tools.ReadFileName, tools.GrepName, tools.ListFilesName); err != nil {
			return loop.Outcome{}, err
		}
	}
	var wc *window.Config
	if t.Context != nil {
		c := *t.Context
		wc = &c
	}
	a, err := loop.New(loop.Config{Model: m, Tools: set, Workspace: ws, System: System,
		MaxSteps: orDefault(t.MaxSteps, 8), MaxTokens: orDefault(t.MaxTokens, 512),
		Guards: loop.Guards{NoGate: true}, Context: wc, Sink: t.Sink})
	if err != nil {
		return loop.Outcome{}, err
	}
	return a.Run(ctx, prompt), nil
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
