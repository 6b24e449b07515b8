package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/loopagent/loop/agent/eval"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/spf13/pflag"
)

type evalFlags struct {
	modelFlags
	genFlags
	suite          string
	configs        []string
	seeds          int
	jsonOut        bool
	html           string
	plan           bool
	fromTranscript string
	toolFormat     string
	export         string
	progress       bool
	parallel       int
	transcripts    string
}

func (f *evalFlags) registerAll(fs *pflag.FlagSet) {
	f.register(fs)
	f.registerGen(fs, 1024)
	fs.StringVar(&f.suite, "suite", eval.SuiteSeed13, "built-in suite ("+strings.Join(eval.BuiltinSuites(), ", ")+") or a suite directory of */scenario.json")
	fs.StringArrayVar(&f.configs, "config", nil, "configuration: a built-in name (raw, +repair, +retry, +loop, +verify, full) or a JSON file; repeat for columns (default: all built-ins)")
	fs.IntVar(&f.seeds, "seeds", 1, "runs of each scenario under each configuration, with seeds 0..N-1")
	fs.BoolVar(&f.jsonOut, "json", false, "print the report as JSON")
	fs.StringVar(&f.html, "html", "", "also write the report as a self-contained HTML page to this file")
	fs.BoolVar(&f.plan, "plan", false, "print how many prompts tell two rates apart: loop eval --plan 90% 85%")
	fs.StringVar(&f.fromTranscript, "from-transcript", "", "make the suite one scenario from a loop run transcript (JSONL)")
	fs.StringVar(&f.toolFormat, "tool-format", "", "call format of the transcript's replies (default hermes)")
	fs.StringVar(&f.export, "export", "", "write the suite as a directory of scenarios here, and run nothing")
	fs.BoolVar(&f.progress, "progress", false, "print each run's result on stderr as it comes")
	fs.StringVar(&f.transcripts, "transcripts", "", "write each run's events to a new JSONL file in this existing directory, as loop run writes them")
	fs.IntVar(&f.parallel, "parallel", 1, "runs at once: with -m, one slot each on one context of that many sequences (each of -c tokens)")
}

// runEval is `loop eval`: scenarios against configurations of the agent,
// with a table of passes per scenario and configuration, rates with
// Wilson intervals and pairwise comparisons; or, with --plan, how many
// prompts tell two rates apart.
func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f evalFlags
	fs := newFlagSet("eval", stderr)
	f.registerAll(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if f.plan {
		return printPlan(stdout, fs.Args())
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	suite, err := f.loadSuite()
	if err != nil {
		return err
	}
	if f.export != "" {
		return eval.WriteSuite(f.export, suite)
	}
	configs, err := f.loadConfigs()
	if err != nil {
		return err
	}
	if f.transcripts != "" {
		// Found missing before the runs, not after each of them.
		if st, err := os.Stat(f.transcripts); err != nil || !st.IsDir() {
			return fmt.Errorf("--transcripts %s: not an existing directory", f.transcripts)
		}
	}
	live, release, err := f.liveFactory(ctx, stderr)
	if err != nil {
		return err
	}
	defer release()
	r := eval.Runner{Live: live, Seeds: f.seeds, Parallel: f.parallel, Window: f.ctxSize, Transcripts: f.transcripts}
	if f.progress {
		r.Progress = func(res eval.Result) {
			fmt.Fprintf(stderr, "%s / %s / seed %d: %s\n", res.Scenario, res.Config, res.Seed, res.Cell())
		}
	}
	rep, err := r.Run(ctx, suite, configs)
	if err != nil {
		return err
	}
	rep.Model = f.model
	if f.html != "" {
		if err := writeHTMLReport(f.html, rep); err != nil {
			return err
		}
	}
	if f.jsonOut {
		return rep.WriteJSON(stdout)
	}
	return rep.WriteText(stdout)
}

// loadSuite reads --suite, or makes a suite of --from-transcript.
func (f *evalFlags) loadSuite() (*eval.Suite, error) {
	if f.fromTranscript == "" {
		return eval.LookupSuite(f.suite)
	}
	file, err := os.Open(f.fromTranscript)
	if err != nil {
		return nil, err
	}
	events, err := transcript.Read(file)
	file.Close()
	if err != nil {
		return nil, err
	}
	sc, err := eval.FromTranscript(events)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.fromTranscript, err)
	}
	sc.Format = f.toolFormat
	name := strings.TrimSuffix(filepath.Base(f.fromTranscript), filepath.Ext(f.fromTranscript))
	return &eval.Suite{Name: name, Scenarios: []*eval.Scenario{sc}}, nil
}

// loadConfigs reads every --config, or takes the built-ins.
func (f *evalFlags) loadConfigs() ([]eval.Config, error) {
	if len(f.configs) == 0 {
		return eval.Builtins(), nil
	}
	var out []eval.Config
	seen := map[string]bool{}
	for _, arg := range f.configs {
		c, err := eval.LookupConfig(arg)
		if err != nil {
			return nil, usageError{err}
		}
		if seen[c.Name] {
			return nil, usagef("two configurations named %q", c.Name)
		}
		seen[c.Name] = true
		out = append(out, c)
	}
	return out, nil
}

// liveFactory loads -m once and hands its clients (one per --parallel
// run, each a slot of one context) to the runs of scenarios without
// scripted replies; without -m there is none. A configuration's no_grammar and prompt format reach the client
// through loop.Config (model.Request.NoGrammar and Format).
func (f *evalFlags) liveFactory(ctx context.Context, stderr io.Writer) (eval.Factory, func(), error) {
	if f.model == "" {
		return nil, func() {}, nil
	}
	m, p, err := loadForContext(ctx, &f.modelFlags, &f.genFlags, stderr)
	if err != nil {
		return nil, nil, err
	}
	if f.parallel < 1 {
		m.Close()
		return nil, nil, usagef("--parallel %d: want 1 or more", f.parallel)
	}
	draftMax, inCalls := f.draft()
	opts := local.Options{ContextSize: p.ContextSize, Threads: p.Threads, FlashAttention: p.FlashAttention,
		DraftMax: draftMax, DraftInCalls: inCalls}
	var clients []*local.Client
	if f.parallel == 1 {
		// One run at a time: the client loop run makes, with room for the
		// task tool's subagent, so that the runs measure loop run's agent.
		opts.Subagents = true
		var c *local.Client
		if c, err = local.New(m, opts); err == nil {
			clients = []*local.Client{c}
		}
	} else {
		opts.ContextSize *= f.parallel
		clients, err = local.NewPool(m, opts, f.parallel)
	}
	if err != nil {
		m.Close()
		return nil, nil, err
	}
	free := make(chan *local.Client, len(clients))
	for _, c := range clients {
		free <- c
	}
	factory := func(ctx context.Context, spec eval.RunSpec) (model.Model, bool, func(), error) {
		select {
		case c := <-free:
			// A run starts as loop run does, with no earlier run's
			// replies to draft from.
			c.ForgetReplies()
			return c, !spec.Config.NoGrammar, func() { free <- c }, nil
		case <-ctx.Done():
			return nil, false, nil, ctx.Err()
		}
	}
	return factory, func() {
		for _, c := range clients {
			c.Close()
		}
		m.Close()
	}, nil
}

func writeHTMLReport(path string, rep *eval.Report) error {
	file, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := rep.WriteHTML(file); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

// printPlan is `loop eval --plan P1 P2`.
func printPlan(stdout io.Writer, args []string) error {
	if len(args) != 2 {
		return usagef("--plan takes two rates: loop eval --plan 90%% 85%%")
	}
	var p [2]float64
	for i, a := range args {
		v, err := parseRate(a)
		if err != nil {
			return usageError{err}
		}
		p[i] = v
	}
	if p[0] == p[1] {
		return usagef("--plan %s %s: the rates are equal", args[0], args[1])
	}
	_, err := fmt.Fprintln(stdout, eval.Plan{P1: p[0], P2: p[1]})
	return err
}

// parseRate reads "90%", "90" or "0.9" as 0.9.
func parseRate(s string) (float64, error) {
	pct := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("rate %q: want 90%%, 90 or 0.9", s)
	}
	if pct || v > 1 {
		v /= 100
	}
	if v < 0 || v > 1 {
		return 0, fmt.Errorf("rate %q: want 0 to 100%%", s)
	}
	return v, nil
}
