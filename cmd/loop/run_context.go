package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopagent/loop/agent/instructions"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/repomap"
	"github.com/loopagent/loop/agent/subagent"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/window"
	"github.com/spf13/pflag"
)

// contextFlags are `loop run`'s workspace context and context management.
type contextFlags struct {
	noFiles    bool
	noRepoMap  bool
	noManage   bool
	noSubagent bool
	todos      bool
	list       *tools.Todos // the todos tool of the run, with --todos
}

func (c *contextFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&c.noFiles, "no-context-files", false, "do not load AGENTS.md, CLAUDE.md, CRUSH.md, GEMINI.md, .cursorrules or .github/copilot-instructions.md")
	fs.BoolVar(&c.noRepoMap, "no-repo-map", false, "no repository map in the system prompt (default: on from a 16K window, as the window plan says)")
	fs.BoolVar(&c.noSubagent, "no-subagent", false, "no task tool (default: on when the window plan searches by subagent, up to 16K, with a model)")
	fs.BoolVar(&c.todos, "todos", false, "offer the todos tool: the model keeps its plan, which goes into compaction summaries")
	fs.BoolVar(&c.noManage, "no-context", false, "no context management: no cap on entry, no compaction (the run fails when the context is full)")
}

// system is the system prompt with the workspace's instruction files and,
// when the window plan has room for one, its repository map: fixed parts,
// first in every request, never changed during the run.
func (c contextFlags) system(root string, plan window.Strategy, stderr io.Writer) string {
	var b strings.Builder
	b.WriteString(loop.DefaultSystem)
	if !c.noFiles {
		files, err := instructions.Load(root, root, instructions.Config{Global: globalInstructions()})
		if err != nil {
			fmt.Fprintf(stderr, "loop run: instruction files: %v\n", err)
		}
		if len(files) > 0 {
			b.WriteString("\n\n# Instructions of this repository\n\n")
			b.WriteString(strings.TrimSpace(instructions.Render(files)))
		}
	}
	if !c.noRepoMap && plan.RepoMap > 0 {
		m, err := repomap.Scan(root, repomap.Options{Tokens: plan.RepoMap})
		if err != nil {
			fmt.Fprintf(stderr, "loop run: repository map: %v\n", err)
		} else if m.Text != "" {
			b.WriteString("\n\n# Repository map\n\n")
			b.WriteString(strings.TrimSpace(m.Text))
		}
	}
	return b.String()
}

// tools are the six tools, the todos tool with --todos, and the task
// tool when the window plan searches by subagent and the model can run
// one in its own slot.
func (c *contextFlags) tools(m model.Model, plan window.Strategy) (*tools.Set, error) {
	set := []tools.Tool{tools.ReadFile{}, tools.EditFile{}, tools.WriteFile{}, tools.Shell{}, tools.Grep{}, tools.ListFiles{}}
	if c.todos {
		c.list = &tools.Todos{}
		set = append(set, c.list)
	}
	if client, ok := m.(*local.Client); ok && !c.noSubagent && plan.Search == window.SearchSubagent {
		set = append(set, subagent.Tool{
			Model: func() (model.Model, func() error, error) {
				sub, err := client.Sub()
				if err != nil {
					return nil, nil, err
				}
				return sub, sub.Release, nil
			},
			Context: &window.Config{Window: plan.Window, Summarize: loop.Summarizer(client, plan.Reserve/2)},
		})
	}
	return tools.NewSet(set...)
}

// globalInstructions is the user's own instruction file, loaded before
// the workspace's: AGENTS.md in loop's configuration directory
// (~/.config/loop/AGENTS.md on Linux). Nothing else outside the
// workspace is read.
func globalInstructions() []string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return nil
	}
	return []string{filepath.Join(dir, "loop", "AGENTS.md")}
}

// manager is the context management of a run on a window of ctxSize
// tokens: the in-process model summarizes its own old turns; a script
// has no model to ask, so old turns are dropped with a note.
func (c *contextFlags) manager(m model.Model, plan window.Strategy) *window.Config {
	if c.noManage {
		return nil
	}
	wc := &window.Config{Window: plan.Window}
	if c.list != nil {
		wc.Todos = c.list.String
	}
	if _, ok := m.(*local.Client); ok {
		wc.Summarize = loop.Summarizer(m, plan.Reserve/2)
	}
	return wc
}
