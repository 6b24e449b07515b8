package main

import (
	"context"
	"io"

	"github.com/loopagent/loop/agent/window"
)

type contextPlanFlags struct {
	ctxSize  []int
	ctx      []int
	triggers bool
	budget   bool
	parts    [3]int // system, tools, instructions, in tokens
	step     int
	jsonOut  bool
}

// contextPlanReport is what `loop context-plan --json` prints.
type contextPlanReport struct {
	Strategies []window.Strategy `json:"strategies"`
	Triggers   []triggerRow      `json:"triggers,omitempty"`
	Budgets    []window.Budget   `json:"budgets,omitempty"`
}

type triggerRow struct {
	Window int `json:"window"`
	Pi     int `json:"pi"`
	Crush  int `json:"crush"`
	Scaled int `json:"scaled"`
}

// runContextPlan prints the settings that package window derives for
// each window (window.Plan), and with --triggers the compaction triggers
// of Pi, Crush and loop.
func runContextPlan(_ context.Context, args []string, stdout, stderr io.Writer) error {
	var f contextPlanFlags
	fs := newFlagSet("context-plan", stderr)
	fs.IntSliceVarP(&f.ctxSize, "ctx-size", "c", []int{8192, 16384, 32768}, "context windows in tokens, comma-separated")
	fs.IntSliceVar(&f.ctx, "ctx", nil, "same as --ctx-size")
	fs.BoolVar(&f.triggers, "triggers", false, "also print the compaction triggers of Pi, Crush and loop")
	fs.BoolVar(&f.budget, "budget", false, "also print each window's budget: the fixed parts, the reply's reserve and the room left for the conversation (loop run's own is in its transcript's task event)")
	fs.IntVar(&f.parts[0], "system-tokens", 900, "with --budget: the system prompt's tokens")
	fs.IntVar(&f.parts[1], "tools-tokens", 1400, "with --budget: the tool definitions' tokens")
	fs.IntVar(&f.parts[2], "instructions-tokens", 600, "with --budget: the instruction files' tokens")
	fs.IntVar(&f.step, "step-tokens", 60+1200, "with --budget: the tokens of one step (a call and its result)")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	windows := f.ctxSize
	if len(f.ctx) > 0 {
		windows = f.ctx
	}
	var rep contextPlanReport
	for _, w := range windows {
		if w < 1024 {
			return usagef("--ctx-size %d: a window has at least 1024 tokens", w)
		}
		rep.Strategies = append(rep.Strategies, window.Plan(w))
		if f.triggers {
			rep.Triggers = append(rep.Triggers, triggerRow{w, window.PiTrigger(w), window.CrushTrigger(w), window.ScaledTrigger(w)})
		}
		if f.budget {
			rep.Budgets = append(rep.Budgets, window.Budget{Window: w, System: f.parts[0], Tools: f.parts[1],
				Instructions: f.parts[2], RepoMap: window.RepoMapTokens(w), Reserve: window.ReserveFor(w)})
		}
	}
	if f.step <= 0 || f.parts[0] < 0 || f.parts[1] < 0 || f.parts[2] < 0 {
		return usagef("--budget: the sizes must not be negative, and a step must have tokens")
	}
	if f.jsonOut {
		return writeJSON(stdout, rep)
	}
	if err := window.WriteStrategies(stdout, rep.Strategies); err != nil {
		return err
	}
	if f.budget {
		if _, err := io.WriteString(stdout, "\n"); err != nil {
			return err
		}
		if err := window.WriteBudgets(stdout, rep.Budgets, f.step); err != nil {
			return err
		}
	}
	if !f.triggers {
		return nil
	}
	if _, err := io.WriteString(stdout, "\n"); err != nil {
		return err
	}
	return window.WriteTriggers(stdout, windows, window.DefaultOpenHands)
}
