package main

import (
	"github.com/spf13/pflag"
)

// contextFlags are `loop run`'s workspace context and context management.
type contextFlags struct {
	noFiles    bool
	noRepoMap  bool
	noManage   bool
	noSubagent bool
	todos      bool
}

func (c *contextFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&c.noFiles, "no-context-files", false, "do not load AGENTS.md, CLAUDE.md, CRUSH.md, GEMINI.md, .cursorrules or .github/copilot-instructions.md")
	fs.BoolVar(&c.noRepoMap, "no-repo-map", false, "no repository map in the system prompt (default: on from a 16K window, as the window plan says)")
	fs.BoolVar(&c.noSubagent, "no-subagent", false, "no task tool (default: on when the window plan searches by subagent, up to 16K, with a model)")
	fs.BoolVar(&c.todos, "todos", false, "offer the todos tool: the model keeps its plan, which goes into compaction summaries")
	fs.BoolVar(&c.noManage, "no-context", false, "no context management: no cap on entry, no compaction (the run fails when the context is full)")
}
