package eval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/sandbox"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
)

// RunSpec is one run: a scenario under a configuration with a seed.
type RunSpec struct {
	Scenario *Scenario
	Config   Config
	// Seed numbers the repetition, from 0; it seeds the samplers of the
	// run (loop.Config.Sampling and CallSampling).
	Seed int
}

// Factory makes the model of one run and a function that releases it. A
// live model's factory applies the run's Config.NoGrammar and Format (or
// refuses them), and may hand out one loaded model again and again (runs
// are sequential); it reports whether the calls are written under a
// grammar. The runner sets the sampling seed itself.
type Factory func(ctx context.Context, spec RunSpec) (m model.Model, grammar bool, release func(), err error)

// Script is the Factory of scripted scenarios: model.NewScript with the
// scenario's replies, branches and format. No grammar constrains them.
func Script(_ context.Context, spec RunSpec) (model.Model, bool, func(), error) {
	sc := spec.Scenario
	if !sc.Scripted() {
		return nil, false, nil, &Error{Op: "run", Subject: sc.Name, Err: ErrNoModel}
	}
	m, err := model.NewScript(sc.format(), sc.Replies, sc.branches()...)
	return m, false, func() {}, err
}

// Runner runs suites. The zero value runs scripted scenarios once each.
// Each run gets a fresh temporary workspace with tools' default shell
// policy and nobody to ask: a command the policy does not allow is
// refused, as a result the model reads.
type Runner struct {
	// Live makes the model of a scenario without scripted replies; nil
	// means such a scenario is an error wrapping ErrNoModel.
	Live Factory
	// Seeds is how many times each (scenario, configuration) runs; 0
	// means 1. A script gives the same result every time; a live model
	// gets seeds 0..Seeds-1.
	Seeds int
	// Progress hears each result as it comes; nil means silence.
	Progress func(Result)
	// Window is the context window of scripted runs, in tokens (a live
	// model has its own); 0 means loop.New's default.
	Window int
	// Transcripts, when set, is a directory where each run's events go,
	// as loop run writes them, to a new file named
	// scenario.config.seed.jsonl.
	Transcripts string
	// Parallel is how many runs go at once; 0 means 1. The factories
	// must then be safe for concurrent use (a pool of clients, one per
	// run: local.NewPool).
	Parallel int
}

// Run runs every scenario of the suite under every configuration, Seeds
// times, Parallel at a time, and reports in that order. A failed run is a Result; an error
// means the harness itself failed (a workspace, a model, a bad
// configuration).
func (r Runner) Run(ctx context.Context, suite *Suite, configs []Config) (*Report, error) {
	seeds := max(r.Seeds, 1)
	var specs []RunSpec
	for _, sc := range suite.Scenarios {
		for _, cfg := range configs {
			for seed := range seeds {
				specs = append(specs, RunSpec{Scenario: sc, Config: cfg, Seed: seed})
			}
		}
	}
	if err := r.checkTranscripts(specs); err != nil {
		return nil, err
	}
	results := make([]Result, len(specs))
	errs := make([]error, len(specs))
	var mu sync.Mutex
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(r.Parallel, 1) {
		wg.Go(func() {
			for i := range next {
				res, err := r.runOne(ctx, specs[i])
				results[i], errs[i] = res, err
				if err == nil && r.Progress != nil {
					mu.Lock()
					r.Progress(res)
					mu.Unlock()
				}
			}
		})
	}
	for i := range specs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return NewReport(suite, configs, seeds, results), nil
}

// runOne runs one scenario through the real loop and judges it.
func (r Runner) runOne(ctx context.Context, spec RunSpec) (Result, error) {
	sc, cfg := spec.Scenario, spec.Config
	factory := Script
	if !sc.Scripted() && r.Live != nil {
		factory = r.Live
	}
	m, grammar, release, err := factory(ctx, spec)
	if err != nil {
		return Result{}, err
	}
	defer release()
	dir, err := os.MkdirTemp("", "loop-eval-")
	if err != nil {
		return Result{}, &Error{Op: "run", Subject: sc.Name, Err: err}
	}
	defer os.RemoveAll(dir)
	if err := sc.copyWorkspace(dir); err != nil {
		return Result{}, &Error{Op: "run", Subject: sc.Name, Err: err}
	}
	agent, evs, err := newAgent(m, spec, dir, r.Window)
	if err != nil {
		return Result{}, &Error{Op: "run", Subject: sc.Name + " / " + cfg.Name, Err: err}
	}
	out := agent.Run(ctx, sc.Task)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if err := r.keep(spec, *evs); err != nil {
		return Result{}, err
	}
	res := measure(*evs, sc)
	res.Scenario, res.Config, res.Seed, res.Grammar = sc.Name, cfg.Name, spec.Seed, grammar
	res.Outcome, res.Requests, res.Agent = string(out.Kind), out.Requests, agent.Setup()
	res.Calls, res.Repairs, res.Retries = out.Calls, out.Repairs, out.Retries
	res.Reason = judge(ctx, sc, out, res, dir)
	res.Pass = res.Reason == ""
	return res, nil
}

// newAgent builds the run's agent with loop.New, as loop run does: the
// same tools, system prompt, context manager and guards for the same
// settings, in a workspace of its own where nobody is asked before a
// command. Its sink keeps the events.
func newAgent(m model.Model, spec RunSpec, dir string, window int) (*loop.Agent, *events, error) {
	sc, cfg := spec.Scenario, spec.Config
	evs := &events{}
	s := loop.Settings{Dir: dir, Window: window, MaxSteps: sc.MaxSteps, Check: sc.Check, Sink: evs,
		Limits: tools.Config{Policy: tools.Policy{Check: sc.Check}}}
	cfg.apply(&s, spec.Seed)
	if sc.Tools == "seed13" {
		s.ToolSet = seedTools()
	}
	a, err := loop.New(m, s)
	return a, evs, err
}

// transcriptName is the file in Transcripts that keeps a run's events.
func transcriptName(spec RunSpec) string {
	return fmt.Sprintf("%s.%s.%d.jsonl", fileName(spec.Scenario.Name), fileName(spec.Config.Name), spec.Seed)
}

// checkTranscripts refuses, before any run, a Transcripts directory that
// already holds a file one of the runs would write: a transcript is never
// overwritten, and a refusal after the runs would lose their results.
func (r Runner) checkTranscripts(specs []RunSpec) error {
	if r.Transcripts == "" {
		return nil
	}
	for _, spec := range specs {
		path := filepath.Join(r.Transcripts, transcriptName(spec))
		_, err := os.Lstat(path)
		if err == nil {
			return &Error{Op: "write transcript", Subject: path, Err: errors.New("already exists (a transcript is never overwritten): give another directory, or empty this one")}
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return &Error{Op: "write transcript", Subject: path, Err: err}
		}
	}
	return nil
}

// keep writes a run's events to Transcripts.
func (r Runner) keep(spec RunSpec, evs []transcript.Event) error {
	if r.Transcripts == "" {
		return nil
	}
	name := transcriptName(spec)
	w, err := transcript.Create(filepath.Join(r.Transcripts, name))
	if err != nil {
		return &Error{Op: "write transcript", Subject: name, Err: err}
	}
	for _, e := range evs {
		w.Emit(e)
	}
	if err := w.Close(); err != nil {
		return &Error{Op: "write transcript", Subject: name, Err: err}
	}
	return nil
}

// fileName makes a name safe as a file name: anything but letters,
// digits, '-', '+' and '_' becomes '_'.
func fileName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '+', r == '_':
			return r
		}
		return '_'
	}, s)
}

// events keeps a run's events.
type events []transcript.Event

func (e *events) Emit(ev transcript.Event) {
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	*e = append(*e, ev)
}

// judge returns why the run failed, or "" when it passed: first how the
// run ended (the model must have answered; an answer after an unverified
// change passes only on the scenario's own conditions), then the
// scenario's conditions in the order of Pass.
func judge(ctx context.Context, sc *Scenario, out loop.Outcome, res Result, dir string) string {
	p := sc.Pass
	switch out.Kind {
	case loop.Verified, loop.Done:
	case loop.Unverified:
		if p.Check == "" && p.Answer == "" && len(p.Calls) == 0 {
			return "unverified" // nothing else can tell a false claim
		}
	case loop.BadReply:
		return out.Reason
	case loop.StepLimit:
		return "steps"
	case loop.LoopStop:
		return "loop"
	default:
		if errors.Is(out.Err, model.ErrScriptEnd) {
			return "script end"
		}
		return "error"
	}
	switch {
	case p.Verified && out.Kind != loop.Verified:
		return "unverified"
	case res.RightCall != nil && !*res.RightCall:
		return "wrong call"
	case p.Answer != "" && !answerMatches(p.Answer, out.Answer):
		return "answer"
	case p.Check != "" && !checkPasses(ctx, p.Check, dir):
		return "check"
	}
	return ""
}

// checkPasses runs the pass condition's command in the workspace, in the
// sandbox the agent's commands run in.
func checkPasses(ctx context.Context, command, dir string) bool {
	code, err := sandbox.Run(sandbox.Command{Args: []string{"sh", "-c", command}, Dir: dir}, ctx.Done())
	return err == nil && code == 0
}

// Cell is the result as a cell of Report.Table writes it:
// PASS(requests) or FAIL:reason.
func (r Result) Cell() string {
	if r.Pass {
		return fmt.Sprintf("PASS(%d)", r.Requests)
	}
	return "FAIL:" + r.Reason
}
