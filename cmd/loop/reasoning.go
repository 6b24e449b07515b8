package main

import (
	"github.com/loopagent/loop/agent/model"
	"github.com/spf13/pflag"
)

// reasoningFlags are --reasoning and --reasoning-budget of `loop run` and
// `loop chat`.
type reasoningFlags struct {
	mode   string
	budget int
}

func (r *reasoningFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&r.mode, "reasoning", "", "on or off, through the template's own switch (enable_thinking, thinking, reasoning_effort, thinking_budget); default: the template's, DeepSeek V3.1 and Granite on")
	fs.IntVar(&r.budget, "reasoning-budget", 0, "reasoning tokens at most per reply; when spent, loop closes the reasoning and the model answers (0: no cap)")
}

// values checks the flags.
func (r reasoningFlags) values() (model.Reasoning, int, error) {
	m, err := model.ParseReasoning(r.mode)
	if err != nil {
		return 0, 0, usageError{err}
	}
	if r.budget < 0 {
		return 0, 0, usagef("--reasoning-budget %d: want 0 (no cap) or more", r.budget)
	}
	return m, r.budget, nil
}
