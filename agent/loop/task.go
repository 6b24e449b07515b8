package loop

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/window"
)

// TaskName is the task tool's name.
const TaskName = "task"

//go:embed task.md
var taskDescription string

const taskSchema = `{"type": "object", "properties": {"prompt": {"type": "string", "minLength": 1, "description": "What to find and how to answer"}}, "required": ["prompt"]}`

// SubagentSystem is the system prompt of the task tool's subagent.
const SubagentSystem = `You are a search helper of a coding agent. Use the read-only tools to find what the task asks in the workspace, then answer in one or two sentences with file names and line numbers. Do not change anything.`

// task is the task tool: a second agent with its own history, the
// read-only tools and its own slot of the model, whose final answer
// alone goes back. The parent's history then holds the task call and a
// short result instead of the search output, a saving that repeats on
// every later request. The cost is the subagent's own requests, and the
// risk that its answer leaves out a detail: a precise prompt with a
// required answer format lowers it.
//
// It is not read-only for the dispatch, although it changes no file: it
// uses the model, so two task calls never run side by side.
type task struct {
	fork     model.Forker
	settings Settings // the subagent's
}

// taskTool is the task tool of an agent with settings s: the subagent
// shares the workspace, reads with read_file, grep and list_files, gets
// 8 requests of 512 tokens, no gate and its own context manager with the
// whole window, and keeps the parent's sampling, format and sink.
func taskTool(f model.Forker, s Settings, plan window.Strategy, ws *tools.Workspace) tools.Tool {
	set, err := tools.Default().Subset(tools.ReadFileName, tools.GrepName, tools.ListFilesName)
	if err != nil {
		panic(err) // the default set has these three
	}
	sub := Settings{Workspace: ws, Window: plan.Window, ToolSet: set, System: SubagentSystem, NoSubagent: true,
		NoInstructions: true, NoRepoMap: true, MaxSteps: 8, MaxTokens: 512, Guards: Guards{NoGate: true},
		Sampling: s.Sampling, Reasoning: s.Reasoning, ReasoningBudget: s.ReasoningBudget, NoGrammar: s.NoGrammar,
		Format: s.Format, Sink: s.Sink}
	return task{fork: f, settings: sub}
}

// taskParams are the task tool's arguments.
type taskParams struct {
	Prompt string `json:"prompt"`
}

func (task) Name() string            { return TaskName }
func (task) Description() string     { return strings.TrimSpace(taskDescription) }
func (task) Schema() json.RawMessage { return json.RawMessage(taskSchema) }
func (task) ReadOnly() bool          { return false }

// Run runs one task to its end and returns the subagent's answer. A task
// that ends without one (step limit, bad replies) is an error result that
// says how it ended.
func (t task) Run(ctx context.Context, ws *tools.Workspace, args json.RawMessage) (tools.Result, error) {
	var p taskParams
	if err := json.Unmarshal(args, &p); err != nil || strings.TrimSpace(p.Prompt) == "" {
		return tools.Result{Content: `task: want {"prompt": "what to find and how to answer"}`, IsError: true}, nil
	}
	m, release, err := t.fork.Fork()
	if err != nil {
		return tools.Result{}, fmt.Errorf("task: %w", err)
	}
	s := t.settings
	s.Workspace = ws
	out, err := runTask(ctx, m, s, p.Prompt)
	if rerr := release(); err == nil {
		err = rerr
	}
	if err != nil {
		return tools.Result{}, fmt.Errorf("task: %w", err)
	}
	if out.Kind != Done && out.Kind != Verified {
		return tools.Result{Content: "The task ended without an answer: " + out.String(), IsError: true}, nil
	}
	return tools.Result{Content: strings.TrimSpace(out.Answer)}, nil
}

func runTask(ctx context.Context, m model.Model, s Settings, prompt string) (Outcome, error) {
	a, err := New(m, s)
	if err != nil {
		return Outcome{}, err
	}
	return a.Run(ctx, prompt), nil
}
