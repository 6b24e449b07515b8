package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopagent/loop/agent/fewshot"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/sandbox"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/sampler"
	"github.com/spf13/pflag"
	"golang.org/x/term"
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
	sandbox    sandboxFlags
	mcp        mcpFlags
	session    sessionFlags

	// A conversation on a terminal (run_interactive.go); nil otherwise.
	keys  *interrupts
	lines *lineReader
	undo  *tools.Undo
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
	fs.StringVar(&f.transcript, "transcript", "", "write the run's events to this new JSONL file, which must not exist (default: a new file in the user cache directory)")
	f.reasoning.register(fs)
	f.context.register(fs)
	fs.StringVar(&f.fewShot, "few-shot", "", `few-shot examples after the system prompt: "default" (two built-in examples) or a JSON file of {user, call: {name, arguments}, result, answer}`)
	fs.BoolVar(&f.noGrammar, "no-grammar", false, "write calls without the call grammar (parsed, repaired and validated as they come)")
	fs.BoolVar(&f.timings, "timings", false, "print where each step's time went (cache, prefill, decode, the agent's own parts) at the end")
	fs.BoolVar(&f.guards.NoRepair, "no-repair", false, "do not repair the JSON of calls")
	fs.BoolVar(&f.guards.NoRecover, "no-recover", false, "do not recover calls written outside the format")
	fs.IntVar(&f.guards.Retries, "retries", 0, "bad replies sent back before giving up (0: 2, -1: none)")
	fs.BoolVar(&f.guards.PruneRetries, "prune-retries", false, "remove failed attempts once a corrected call ran")
	fs.BoolVar(&f.guards.NoLoopGuard, "no-loop-guard", false, "do not detect repeated calls")
	fs.IntVar(&f.guards.LoopRepeats, "loop-repeats", 0, "identical steps in a row that are a loop (0: 3)")
	fs.IntVar(&f.guards.LoopCycles, "loop-cycles", 0, "two-step cycles in a row that are a loop (0: 2)")
	fs.BoolVar(&f.guards.NoGate, "no-gate", false, "accept an answer after an unverified edit, or while the check fails on a task that asks for a change (otherwise such an answer is sent back, up to twice)")
	fs.BoolVar(&f.guards.NoForce, "no-force", false, "keep tool_choice auto on every step")
	fs.BoolVar(&f.guards.AllTools, "all-tools", false, "offer edit_file and write_file to a question that asks for no change too")
	fs.BoolVar(&f.guards.NoPaths, "no-paths", false, "let read_file and edit_file name any path, not only the workspace's files, in the call grammar")
	fs.BoolVar(&f.guards.NoSyntaxCheck, "no-syntax-check", false, "let edit_file and write_file leave a Go or JSON file that no longer parses, or a Go file of another package than its directory's, redeclaring a name of its package or using a name declared nowhere")
	f.sandbox.register(fs)
	f.mcp.register(fs)
	f.session.register(fs)
}

// parseRun parses loop run's flags and its task ("" for none).
func parseRun(args []string, stderr io.Writer) (*runFlags, string, error) {
	f := &runFlags{}
	fs := newFlagSet("run", stderr)
	f.registerAll(fs)
	if err := parse(fs, args); err != nil {
		return nil, "", err
	}
	if err := f.validate(); err != nil {
		return nil, "", err
	}
	task := strings.Join(fs.Args(), " ")
	if fs.NArg() > 0 && strings.TrimSpace(task) == "" {
		return nil, "", usagef("the task is empty: give a task, or none to read tasks from standard input")
	}
	return f, task, nil
}

// runRun is `loop run`: the agent on a task, or, without one, on each line
// of standard input in one conversation (on a terminal, with commands:
// run_interactive.go). Its exit code tells the outcome (see
// loop.Kind.ExitCode).
func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f, task, err := parseRun(args, stderr)
	if err != nil {
		return err
	}
	if err := f.session.open(f.dir); err != nil {
		return err
	}
	if task == "" && !f.mcp.list && onTerminal(os.Stdin) {
		var end func()
		ctx, end = f.converse(ctx, stderr)
		defer end()
	}
	if err := f.mcp.start(ctx, f.dir, stderr); err != nil {
		return err
	}
	defer f.mcp.close()
	if f.mcp.list {
		return f.mcp.printTools(stdout)
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
	defer f.session.close(stderr)
	last, goOn := f.session.begin(sinks.multi, task, stderr)
	switch {
	case f.keys != nil:
		return f.termConversation(a, sinks, stderr).run(last)
	case goOn:
		return outcomeError(a.Continue(ctx, last))
	case task != "":
		return outcomeError(a.Run(ctx, task))
	}
	return interactive(ctx, a, os.Stdin, stderr)
}

// validate refuses a bad command line before a model loads: the limits,
// the workspace, the sandbox's flags and an existing --transcript file.
func (f *runFlags) validate() error {
	if err := f.genFlags.check(); err != nil {
		return err
	}
	switch {
	case f.dir == "":
		return usagef(`-C "": name the workspace directory ("." for the current one)`)
	case f.maxSteps < 0:
		return usagef("--max-steps %d: want 1 or more (0: 30)", f.maxSteps)
	case f.maxTokens < 0:
		return usagef("--max-tokens %d: want 1 or more (0: 1024)", f.maxTokens)
	case f.timeout < 0:
		return usagef("--timeout %v: want 0 (none) or more", f.timeout)
	}
	if f.transcript != "" {
		if _, err := os.Lstat(f.transcript); err == nil {
			return errTranscriptExists(f.transcript)
		}
	}
	if err := f.sandbox.check(); err != nil {
		return err
	}
	return readableDir(f.dir)
}

// readableDir checks that loop can list the workspace: it opens dir/.,
// so that the kernel checks search permission as well as read permission,
// and reads an entry. In a workspace loop cannot read, the tools fail on
// every call and a model may still answer "done".
func readableDir(dir string) error {
	d, err := os.Open(dir + string(filepath.Separator) + ".")
	if err == nil {
		_, err = d.ReadDir(1)
		d.Close()
	}
	if err == nil || errors.Is(err, io.EOF) {
		return nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("workspace %s: cannot read it: %w", dir, err)
}

// sandboxFlags say what shell commands may do beyond the kernel sandbox's
// default (sandbox.Spec).
type sandboxFlags struct {
	mode     string       // --sandbox: on or off
	writable []string     // --sandbox-write, as given
	spec     sandbox.Spec // what check makes of the flags
}

func (s *sandboxFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&s.mode, "sandbox", "on", "run shell commands in the kernel sandbox: on or off")
	fs.BoolVar(&s.spec.AllowNet, "allow-net", false, "let shell commands use the network")
	fs.StringArrayVar(&s.writable, "sandbox-write", nil, "an existing directory where shell commands may also write (repeatable)")
}

// check turns the flags into spec. Each --sandbox-write directory must
// exist; it is made absolute, since commands run in the workspace.
func (s *sandboxFlags) check() error {
	switch s.mode {
	case "on", "off":
		s.spec.Off = s.mode == "off"
	default:
		return usagef("--sandbox %q: want on or off", s.mode)
	}
	s.spec.Writable = nil
	for _, dir := range s.writable {
		info, err := os.Stat(dir)
		var pe *fs.PathError
		switch {
		case errors.As(err, &pe):
			return usagef("--sandbox-write %q: %v", dir, pe.Err)
		case err != nil:
			return usagef("--sandbox-write %q: %v", dir, err)
		case !info.IsDir():
			return usagef("--sandbox-write %q: not a directory", dir)
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return usagef("--sandbox-write %q: %v", dir, err)
		}
		s.spec.Writable = append(s.spec.Writable, abs)
	}
	return nil
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
	s, err := f.settings(o, stderr)
	if err != nil {
		return nil, nil, err
	}
	sinks, err := f.sinks(stdout, stderr)
	if err != nil {
		return nil, nil, err
	}
	if err := f.session.wire(&s, m, sinks); err != nil {
		sinks.close(stderr)
		return nil, nil, err
	}
	s.Sink = sinks.multi
	if !f.jsonOut {
		s.OnDelta = sinks.term.delta
		s.OnPrefill = prefillBar(stderr)
	}
	a, err := loop.New(m, s)
	if err != nil {
		sinks.close(stderr)
		return nil, nil, err
	}
	for _, w := range a.Warnings() {
		fmt.Fprintf(stderr, "loop run: %s\n", w)
	}
	if !f.sandbox.spec.Off && !tools.Sandboxed(f.sandbox.spec) {
		fmt.Fprintln(stderr, "loop run: this system has no kernel sandbox (Landlock); commands other than the safe read-only ones are asked before they run")
	}
	return a, sinks, nil
}

// settings are the agent's settings from the flags: everything but the
// sinks. -c sets the window of a script; a model has its own.
func (f *runFlags) settings(o sampler.Overrides, stderr io.Writer) (loop.Settings, error) {
	s := loop.Settings{Dir: f.dir, InstructionsRoot: repositoryRoot(f.dir), Window: f.ctxSize,
		Limits: tools.Config{Sandbox: f.sandbox.spec, Policy: tools.Policy{Yes: f.yes, Ask: askOn(os.Stdin, stderr), Check: f.checkCmd}, Undo: f.undo},
		Todos:  f.context.todos, NoSubagent: f.context.noSubagent, NoInstructions: f.context.noFiles,
		NoRepoMap: f.context.noRepoMap, NoContext: f.context.noManage, GlobalInstructions: loop.GlobalInstructions(),
		MaxSteps: f.maxSteps, MaxTokens: f.maxTokens, Timeout: f.timeout, Guards: f.guards, Check: f.checkCmd,
		Sampling: model.Agent(o), NoGrammar: f.noGrammar, MoreTools: f.mcp.tools()}
	if f.lines != nil {
		s.Limits.Policy.Ask = f.lines.ask(stderr)
	}
	var err error
	if s.Reasoning, s.ReasoningBudget, err = f.reasoning.values(); err != nil {
		return s, err
	}
	if s.FewShot, err = readShots(f.fewShot); err != nil {
		return s, err
	}
	return s, nil
}

// repositoryRoot is the root of the repository that holds dir: the
// nearest directory at or above it with a .git entry, or "" when there is
// none. The instruction files load from there down to the workspace.
func repositoryRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
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

// interactive reads tasks line by line into one conversation, until the
// end of the input or a cancelled run. A cancelled context (Ctrl-C,
// SIGTERM) ends the wait for a line too.
func interactive(ctx context.Context, a *loop.Agent, in io.Reader, stderr io.Writer) error {
	r := bufio.NewReader(in)
	var last loop.Outcome
	for {
		fmt.Fprint(stderr, "> ")
		line, err := nextTask(ctx, r)
		if err != nil {
			fmt.Fprintln(stderr)
			if errors.Is(err, io.EOF) {
				return outcomeError(last)
			}
			return err
		}
		if task := strings.TrimSpace(line); task != "" {
			if last = a.Run(ctx, task); last.Kind == loop.Cancelled {
				fmt.Fprintln(stderr)
				return outcomeError(last)
			}
		}
	}
}

// maxTaskLine is the longest line loop reads as a task from standard
// input: 1 MiB, more than any model's context holds. A longer line is an
// error; it is never cut or dropped.
const maxTaskLine = 1 << 20

// nextTask reads the next line of r in a goroutine of its own, so that a
// cancelled ctx ends the wait; the abandoned read ends with the process.
// It reads only when asked, so the answer to a question (askOn) is not
// taken for a task.
func nextTask(ctx context.Context, r *bufio.Reader) (string, error) {
	type read struct {
		line string
		err  error
	}
	done := make(chan read, 1)
	go func() {
		line, err := readLine(r, maxTaskLine)
		done <- read{line, err}
	}()
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case got := <-done:
		return got.line, got.err
	}
}

// readLine reads a line of any length up to limit bytes, without its
// newline; the last line may lack one. It returns io.EOF only when no
// line is left, and an error naming the limit for a longer line.
func readLine(r *bufio.Reader, limit int) (string, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(bytes.TrimSuffix(line, []byte("\n"))) > limit {
			return "", fmt.Errorf("standard input: a task line longer than %d bytes, the most loop reads", limit)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return string(line), nil
		case err != nil && !errors.Is(err, io.EOF):
			return "", fmt.Errorf("standard input: %w", err)
		}
		return strings.TrimSuffix(string(line), "\n"), err
	}
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
// does not allow by itself. Without a terminal on in (CI, a pipe of
// tasks) there is no one to ask: it is nil, and such commands are refused.
func askOn(in *os.File, stderr io.Writer) func(ctx context.Context, command string) (bool, error) {
	if !term.IsTerminal(int(in.Fd())) {
		return nil
	}
	return func(ctx context.Context, command string) (bool, error) {
		fmt.Fprintf(stderr, "\nrun %q? [y/N] ", command)
		line, err := bufio.NewReader(in).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		return strings.EqualFold(strings.TrimSpace(line), "y"), nil
	}
}

// transcriptDir is where a run's transcript goes without --transcript.
func transcriptDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "loop", "transcripts")
}

// transcriptName is the file name of a transcript without --transcript:
// the UTC start time to the millisecond, so that names sort by time, and
// a random suffix, so that runs started in the same millisecond differ.
func transcriptName(now time.Time) string {
	var suffix [4]byte
	rand.Read(suffix[:])
	return now.UTC().Format("20060102-150405.000") + "-" + hex.EncodeToString(suffix[:]) + ".jsonl"
}
