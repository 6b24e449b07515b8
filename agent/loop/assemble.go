package loop

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/gate"
	"github.com/loopagent/loop/agent/instructions"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/repomap"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/agent/window"
)

// defaultWindow is the window of a model that does not say its own.
const defaultWindow = 4096

// New assembles the agent that runs on m with settings s: the workspace,
// the tools the window plan calls for, the system prompt with the
// instruction files and the repository map, the context manager and the
// subagent. It is the one constructor: `loop run`, `loop eval`, the task
// tool's subagent, training-data generation and `loop bench` all call it.
func New(m model.Model, s Settings) (*Agent, error) {
	if m == nil {
		return nil, errors.New("loop: New needs a model")
	}
	c := config{Settings: s, model: m}
	size := s.Window
	if sized, ok := m.(model.Sized); ok {
		size = sized.ContextSize()
	}
	if size <= 0 {
		size = defaultWindow
	}
	plan := window.Plan(size)
	var err error
	if c.ws = s.Workspace; c.ws == nil {
		limits := s.Limits
		if limits.Window == 0 {
			limits.Window = size
		}
		limits.NoSyntaxCheck = limits.NoSyntaxCheck || s.Guards.NoSyntaxCheck
		if c.ws, err = tools.NewWorkspace(s.Dir, limits); err != nil {
			return nil, err
		}
	}
	if c.tools, c.todos, err = toolsFor(m, s, plan, c.ws); err != nil {
		return nil, err
	}
	var left []string
	if c.tools, left, err = withMoreTools(c.tools, s.MoreTools); err != nil {
		return nil, err
	}
	var sys system
	c.system, sys = systemPrompt(s, plan, c.ws.Root())
	c.context = contextFor(m, s, plan, c.todos)
	a, err := newAgent(c)
	if err != nil {
		return nil, err
	}
	a.warnings = append(sys.warnings, left...)
	var counter window.Counter = window.Estimate{}
	if mc, ok := m.(model.Counter); ok {
		counter = tokens{mc}
	}
	sys.parts.Tools = string(c.tools.Definitions())
	a.setup = Setup{Window: size, Tools: c.tools.Names(), Instructions: sys.files, RepoMap: sys.repoMap, Context: c.context != nil,
		Budget: window.NewBudget(size, counter, sys.parts)}
	if c.context != nil {
		a.setup.CompactAt = window.ScaledTrigger(c.context.Window)
	}
	return a, nil
}

// newAgent builds the Agent of an assembled configuration.
func newAgent(c config) (*Agent, error) {
	defs, err := chat.ParseTools(c.tools.Definitions())
	if err != nil {
		return nil, fmt.Errorf("loop: the tools' definitions: %w", err)
	}
	check := c.Check
	if check == "" {
		check = gate.DetectCheck(c.ws.Root())
	}
	a := &Agent{cfg: c, tools: defs, gate: gate.New(check), sink: c.Sink, ids: map[string]bool{}}
	if a.sink == nil {
		a.sink = transcript.Multi(nil)
	}
	a.allTools = newToolSet(defs)
	a.questionTools = a.allTools
	if w := c.tools.Writers(); len(w) > 0 && !c.Guards.AllTools {
		a.questionTools = newToolSet(withoutWriters(defs, w))
	}
	a.useTools(a.allTools)
	a.guards = newGuards(c)
	if err := a.newWindow(); err != nil {
		return nil, err
	}
	return a, nil
}

// toolsFor is the tool set of s: ToolSet, or the six tools ("small":
// three), the todos tool with Todos, and the task tool when the window
// plan searches by subagent and the model can fork.
func toolsFor(m model.Model, s Settings, plan window.Strategy, ws *tools.Workspace) (*tools.Set, *tools.Todos, error) {
	if s.ToolSet != nil {
		return s.ToolSet, nil, nil
	}
	set := []tools.Tool{tools.ReadFile{}, tools.EditFile{}, tools.WriteFile{}, tools.Shell{}, tools.Grep{}, tools.ListFiles{}}
	switch s.Tools {
	case "", "large":
	case "small":
		set = []tools.Tool{tools.ReadFile{}, tools.EditFile{}, tools.Shell{}}
	default:
		return nil, nil, fmt.Errorf("loop: tools %q: want small or large", s.Tools)
	}
	var todos *tools.Todos
	if s.Todos {
		todos = &tools.Todos{}
		set = append(set, todos)
	}
	if f, ok := m.(model.Forker); ok && f.CanFork() && !s.NoSubagent && plan.Search == window.SearchSubagent {
		set = append(set, taskTool(f, s, plan, ws))
	}
	out, err := tools.NewSet(set...)
	return out, todos, err
}

// systemPrompt is the system prompt: DefaultSystem (or s.System), the
// instruction files from InstructionsRoot down to the workspace, and, when
// the window plan has room for one, the repository map. They are fixed
// parts, first in every request, never changed during a run. A part
// that cannot be read is left out with a warning: the run goes on
// without it.
func systemPrompt(s Settings, plan window.Strategy, root string) (string, system) {
	var sys system
	var b strings.Builder
	b.WriteString(s.System)
	if s.System == "" {
		b.WriteString(DefaultSystem)
	}
	sys.parts.System = b.String()
	if !s.NoInstructions {
		from := s.InstructionsRoot
		if from == "" {
			from = root
		}
		files, err := instructions.Load(from, root, instructions.Config{Global: s.GlobalInstructions})
		if err != nil {
			sys.warnings = append(sys.warnings, fmt.Sprintf("instruction files: %v", err))
		}
		sys.files = len(files)
		if len(files) > 0 {
			sys.parts.Instructions = "\n\n# Instructions of this repository\n\n" + strings.TrimSpace(instructions.Render(files))
			b.WriteString(sys.parts.Instructions)
		}
	}
	if !s.NoRepoMap && plan.RepoMap > 0 {
		m, err := repomap.Scan(root, repomap.Options{Tokens: plan.RepoMap})
		if err != nil {
			sys.warnings = append(sys.warnings, fmt.Sprintf("repository map: %v", err))
		} else if m.Text != "" {
			sys.repoMap = true
			sys.parts.RepoMap = "\n\n# Repository map\n\n" + strings.TrimSpace(m.Text)
			b.WriteString(sys.parts.RepoMap)
		}
	}
	return b.String(), sys
}

// system is what went into the system prompt besides its text.
type system struct {
	parts    window.Parts // the fixed parts as text, for the budget
	files    int          // instruction files loaded
	repoMap  bool         // the repository map is in
	warnings []string     // parts left out, and why
}

// Setup is what New assembled around the model, for reports: `loop eval`
// names it beside each configuration.
type Setup struct {
	// Window is the context window in tokens.
	Window int `json:"window"`
	// Tools are the tools offered, in order.
	Tools []string `json:"tools"`
	// Instructions is how many instruction files the system prompt holds.
	Instructions int `json:"instruction_files"`
	// RepoMap says whether it holds the repository map.
	RepoMap bool `json:"repo_map"`
	// Context says whether the context manager runs, and CompactAt is
	// the prompt size in tokens above which it compacts.
	Context   bool `json:"context_management"`
	CompactAt int  `json:"compact_at,omitempty"`
	// Budget splits the window: the fixed parts paid on every request
	// (system prompt, tools, instruction files, repository map), counted
	// with the model's tokenizer when it counts (else estimated), the
	// reply's reserve, and what is left for the conversation.
	Budget window.Budget `json:"budget"`
}

// String is the setup in one line.
func (s Setup) String() string {
	ctx := "no context management"
	if s.Context {
		ctx = fmt.Sprintf("context management (compaction above %d tokens)", s.CompactAt)
	}
	repoMap := "no repository map"
	if s.RepoMap {
		repoMap = "a repository map"
	}
	b := s.Budget
	return fmt.Sprintf("window %d tokens: %d fixed (system %d, tools %d, instructions %d, map %d), %d reserved, %d for the conversation (%.1f%%); %s, %d instruction files, %s, tools %s",
		s.Window, b.Fixed(), b.System, b.Tools, b.Instructions, b.RepoMap, b.Reserve, b.History(), b.HistoryShare(), ctx, s.Instructions, repoMap, strings.Join(s.Tools, " "))
}

// contextFor is the context manager's configuration: none with
// NoContext, else s.Context or the window plan's, where a model that
// counts its tokens (model.Counter) summarizes its own old turns and
// another's are dropped with a note.
func contextFor(m model.Model, s Settings, plan window.Strategy, todos *tools.Todos) *window.Config {
	if s.NoContext {
		return nil
	}
	wc := window.Config{Window: plan.Window}
	if s.Context != nil {
		wc = *s.Context
		if wc.Window == 0 {
			wc.Window = plan.Window
		}
	}
	if todos != nil && wc.Todos == nil {
		wc.Todos = todos.String
	}
	if _, ok := m.(model.Counter); ok && wc.Summarize == nil {
		wc.Summarize = Summarizer(m, plan.Reserve/2)
	}
	return &wc
}

// GlobalInstructions is the user's own instruction file, loaded before
// the workspace's: AGENTS.md in loop's configuration directory
// (~/.config/loop/AGENTS.md on Linux). Nothing else outside the
// workspace is read.
func GlobalInstructions() []string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil
	}
	return []string{filepath.Join(dir, "loop", "AGENTS.md")}
}
