package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	window "github.com/loopagent/loop/agent/context"
	"github.com/loopagent/loop/agent/fewshot"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/sampler"
	"github.com/spf13/pflag"
)

type runFlags struct {
	modelFlags
	genFlags
	sampling   samplingFlags
	dir        string
	script     string
	format     string
	maxSteps   int
	maxTokens  int
	timeout    time.Duration
	checkCmd   string
	yes        bool
	jsonOut    bool
	transcript string
	reasoning  reasoningFlags
	timings    bool
	noGrammar  bool
	fewShot    string
	context    contextFlags
	guards     loop.Guards
}

func (f *runFlags) registerAll(fs *pflag.FlagSet) {
	f.register(fs)
	f.registerGen(fs, 1024)
	f.sampling.register(fs)
	fs.StringVarP(&f.dir, "directory", "C", ".", "workspace: the tools work inside this directory")
	fs.StringVar(&f.script, "script", "", "replay the replies of a JSON file instead of a model (a JSON array of strings)")
	fs.StringVar(&f.format, "tool-format", "", "call format of --script replies, or instead of the detected one (default hermes for scripts)")
	fs.IntVar(&f.maxSteps, "max-steps", 30, "model requests at most")
	fs.IntVar(&f.maxTokens, "max-tokens", 1024, "tokens per reply at most")
	fs.DurationVar(&f.timeout, "timeout", 0, "wall-clock limit of the run (0: none)")
	fs.StringVar(&f.checkCmd, "check", "", "the command that verifies a change (default: detected: go test ./..., make test, npm test, ...)")
	fs.BoolVar(&f.yes, "yes", false, "run every shell command without asking")
	fs.BoolVar(&f.jsonOut, "json", false, "write the events as JSON lines instead of the terminal view")
	fs.StringVar(&f.transcript, "transcript", "", "append the run's events to this JSONL file (default: in the user cache directory)")
	f.reasoning.register(fs)
	f.context.register(fs)
	fs.StringVar(&f.fewShot, "few-shot", "", `few-shot examples after the system prompt: "default" (the seed's two) or a JSON file of {user, call: {name, arguments}, result, answer}`)
	fs.BoolVar(&f.noGrammar, "no-grammar", false, "write calls without the call grammar (parsed, repaired and validated as they come)")
	fs.BoolVar(&f.timings, "timings", false, "print where each step's time went (cache, prefill, decode, the agent's own parts) at the end")
	fs.BoolVar(&f.guards.NoRepair, "no-repair", false, "do not repair the JSON of calls")
	fs.BoolVar(&f.guards.NoRecover, "no-recover", false, "do not recover calls written outside the format")
	fs.IntVar(&f.guards.Retries, "retries", 0, "bad replies sent back before giving up (0: 2, -1: none)")
	fs.BoolVar(&f.guards.PruneRetries, "prune-retries", false, "remove failed attempts once a corrected call ran")
	fs.BoolVar(&f.guards.NoLoopGuard, "no-loop-guard", false, "do not detect repeated calls")
	fs.IntVar(&f.guards.LoopRepeats, "loop-repeats", 0, "identical steps in a row that are a loop (0: 3)")
	fs.IntVar(&f.guards.LoopCycles, "loop-cycles", 0, "two-step cycles in a row that are a loop (0: 2)")
	fs.BoolVar(&f.guards.NoGate, "no-gate", false, "accept an answer after an unverified edit")
	fs.BoolVar(&f.guards.NoForce, "no-force", false, "keep tool_choice auto on every step")
	fs.BoolVar(&f.guards.NoPaths, "no-paths", false, "let read_file and edit_file name any path, not only the workspace's files, in the call grammar")
}

// runRun is `loop run`: the agent on a task, or, without one, on each line
// of standard input in one conversation. Its exit code tells the outcome
// (see loop.Kind.ExitCode).
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f runFlags
	fs := newFlagSet("run", stderr)
	f.registerAll(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	if f.script == "" {
		if err := f.resolve(stderr); err != nil {
			return err
		}
		if f.model == "" {
			return usagef("no model: pass -m FILE, or --script FILE to replay replies")
		}
	}
	o, err := f.sampling.overrides()
	if err != nil {
		return err
	}
	m, closeModel, err := f.modelFor(ctx, stderr)
	if err != nil {
		return err
	}
	defer closeModel()
	a, sinks, err := f.agent(m, o, stdout, stderr)
	if err != nil {
		return err
	}
	defer sinks.close(stderr)
	task := strings.Join(fs.Args(), " ")
	if task != "" {
		return outcomeError(a.Run(ctx, task))
	}
	return interactive(ctx, a, os.Stdin, stderr)
}

// modelFor loads the model, or reads the script.
func (f *runFlags) modelFor(ctx context.Context, stderr io.Writer) (model.Model, func(), error) {
	if f.script != "" {
		b, err := os.ReadFile(f.script)
		if err != nil {
			return nil, nil, err
		}
		replies, branches, err := model.ParseScript(b)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f.script, err)
		}
		format := f.format
		if format == "" {
			format = "hermes"
		}
		s, err := model.NewScript(format, replies, branches...)
		return s, func() {}, err
	}
	m, p, err := loadForContext(ctx, &f.modelFlags, &f.genFlags, stderr)
	if err != nil {
		return nil, nil, err
	}
	draftMax, inCalls := f.draft()
	c, err := local.New(m, local.Options{ContextSize: p.ContextSize, Threads: p.Threads, FlashAttention: p.FlashAttention, Format: f.format,
		Subagents: !f.context.noSubagent, DraftMax: draftMax, DraftInCalls: inCalls})
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	return c, func() { c.Close(); m.Close() }, nil
}

// agent builds the agent and the sinks of its events.
func (f *runFlags) agent(m model.Model, o sampler.Overrides, stdout, stderr io.Writer) (*loop.Agent, *runSinks, error) {
	size := f.ctxSize
	if c, ok := m.(*local.Client); ok {
		size = c.ContextSize()
	}
	ws, err := tools.NewWorkspace(f.dir, tools.Config{Window: size, Policy: tools.Policy{Yes: f.yes, Ask: askOn(stderr)}})
	if err != nil {
		return nil, nil, err
	}
	sinks, err := f.sinks(stdout, stderr)
	if err != nil {
		return nil, nil, err
	}
	plan := window.Plan(size)
	set, err := f.context.tools(m, plan)
	if err != nil {
		return nil, nil, err
	}
	cfg := loop.Config{Model: m, Tools: set, Workspace: ws, MaxSteps: f.maxSteps, MaxTokens: f.maxTokens,
		Timeout: f.timeout, Guards: f.guards, Check: f.checkCmd, Sink: sinks.multi,
		System: f.context.system(ws.Root(), plan, stderr), Context: f.context.manager(m, plan), NoGrammar: f.noGrammar}
	if !reflect.ValueOf(o).IsZero() {
		prose, call, err := presetsWith(o)
		if err != nil {
			return nil, nil, err
		}
		cfg.Sampling, cfg.CallSampling = &prose, &call
	}
	if cfg.Reasoning, cfg.ReasoningBudget, err = f.reasoning.values(); err != nil {
		return nil, nil, err
	}
	if cfg.FewShot, err = readShots(f.fewShot); err != nil {
		return nil, nil, err
	}
	if !f.jsonOut {
		cfg.OnDelta = sinks.term.delta
		cfg.OnPrefill = prefillBar(stderr)
	}
	a, err := loop.New(cfg)
	return a, sinks, err
}

// readShots reads --few-shot.
func readShots(arg string) (fewshot.Shots, error) {
	switch arg {
	case "":
		return nil, nil
	case "default":
		return fewshot.Default(), nil
	}
	b, err := os.ReadFile(arg)
	if err != nil {
		return nil, err
	}
	shots, err := fewshot.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", arg, err)
	}
	return shots, nil
}

// presetsWith layers the command line's sampling flags over both presets.
func presetsWith(o sampler.Overrides) (prose, call sampler.Config, err error) {
	for _, p := range []struct {
		name string
		dst  *sampler.Config
	}{{sampler.PresetProse, &prose}, {sampler.PresetToolCall, &call}} {
		base, err := sampler.Preset(p.name)
		if err != nil {
			return prose, call, err
		}
		if *p.dst, err = sampler.Resolve(nil, base.Merge(o)); err != nil {
			return prose, call, usageError{err}
		}
	}
	return prose, call, nil
}

// prefillBar shows a long prompt's prefill, step by step.
func prefillBar(stderr io.Writer) func(step, done, total int) {
	var bar *progressBar
	return func(step, done, total int) {
		if bar == nil {
			bar = newProgressBar(stderr, fmt.Sprintf("step %d: reading the prompt", step), total)
		}
		bar.set(done)
		if done >= total {
			bar.done()
			bar = nil
		}
	}
}

// interactive reads instructions line by line into one conversation.
func interactive(ctx context.Context, a *loop.Agent, in io.Reader, stderr io.Writer) error {
	sc := bufio.NewScanner(in)
	fmt.Fprint(stderr, "> ")
	var last loop.Outcome
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" {
			last = a.Run(ctx, line)
			if last.Kind == loop.Cancelled {
				break
			}
		}
		fmt.Fprint(stderr, "> ")
	}
	fmt.Fprintln(stderr)
	return outcomeError(last)
}

// outcomeError turns an outcome into the command's error, which main turns
// into the exit code.
func outcomeError(o loop.Outcome) error {
	if o.Kind == "" || o.Kind.ExitCode() == 0 {
		return nil
	}
	return outcomeErr{o}
}

type outcomeErr struct{ o loop.Outcome }

func (e outcomeErr) Error() string { return e.o.String() }

// askOn asks the user on the terminal before a command the shell policy
// does not know.
func askOn(stderr io.Writer) func(ctx context.Context, command string) (bool, error) {
	return func(ctx context.Context, command string) (bool, error) {
		fmt.Fprintf(stderr, "\nrun %q? [y/N] ", command)
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		return strings.EqualFold(strings.TrimSpace(line), "y"), nil
	}
}

// transcriptPath is where a run's events go without --transcript.
func transcriptPath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "loop", "transcripts", time.Now().UTC().Format("20060102-150405")+".jsonl")
}
