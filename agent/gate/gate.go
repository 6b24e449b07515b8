// Package gate is the agent's verification gate. A small model often
// claims that the tests pass without having run them, or answers before
// testing at all. No format technique catches that, since the claim is
// well-formed text; the gate does: a final answer that comes after an edit,
// with no successful check command since, is not accepted. The agent asks
// once for verification; if the answer comes again unverified, or right
// after the check failed (there is nothing to ask), the run ends as
// "unverified". A task that asks for a change (WantsChange: "Fix
// the bug in cart.go.") answered before anything was edited gets one
// reminder too: a small model often answers with a plan, or with words
// about another file, instead of making the change. And such a task
// answered while the check it ran last fails, with no edit since, is
// sent back up to MaxFixAsks times: a small model often reads a failure
// and then says that the tests pass.
//
//	g := gate.New(gate.DetectCheck(root))
//	g.Observe(gate.Step{Edit: true, OK: true})
//	switch g.Answer() { case gate.Accept: ...; case gate.Ask: ...; case gate.Unverified: ... }
//
// DetectCheck finds the workspace's check command the way a developer
// would: go test, make test, npm test, pytest, mvn or cargo. It reads the
// workspace's files through package confined, so a hostile Makefile (a
// FIFO, a link to /dev/zero) is skipped instead of hanging the start.
package gate

import (
	"os"
	"regexp"
	"strings"

	"github.com/loopagent/loop/agent/confined"
)

// Step is one executed tool call, as the gate sees it.
type Step struct {
	Command string // the command the call ran, if it ran one
	OK      bool   // the call succeeded (exit code 0 for a command)
	Edit    bool   // the call changed files in the workspace
}

// Verdict is what the gate says of a final answer.
type Verdict int

const (
	// Accept: nothing was changed, or a check passed after the last change.
	Accept Verdict = iota
	// Ask: the answer comes after an unverified change; ask the model to
	// run the check, once.
	Ask
	// Unverified: the model answered again without verifying.
	Unverified
	// AskChange: the task asks for a change and nothing has been edited;
	// remind the model, once.
	AskChange
	// AskFix: the task asks for a change and the check failed after the
	// last edit (or with none); send the model back to fix it, up to
	// MaxFixAsks times.
	AskFix
)

// MaxFixAsks is how many answers a failing check sends back in one task.
const MaxFixAsks = 2

func (v Verdict) String() string {
	return [...]string{"accept", "ask", "unverified", "ask-change", "ask-fix"}[v]
}

// Gate tracks edits and checks over a run. It is not safe for concurrent
// use.
type Gate struct {
	// Check is the check command; empty means any recognised test or build
	// command counts (see IsCheck).
	Check    string
	dirty    bool // an edit without a passing check since
	verified bool // a check passed after the last edit
	failing  bool // the last check command run failed
	stale    bool // an edit since the last check command
	asked    bool
	fixAsks  int // AskFix verdicts in this task

	wantsChange bool // the task asks for a change (Task)
	everEdited  bool // an edit succeeded in this run
	askedChange bool
}

// changeRequest matches a task that asks for a change: an imperative verb
// of change that starts a sentence or follows "and" ("Fix it.", "find the
// bug and fix it", "go test fails; fix it"), or "make the tests pass".
var changeRequest = regexp.MustCompile(`(?i)((^|[.!;:]\s+|\band\s+)(please\s+)?(fix|repair|correct|implement|add|change|update|rename|refactor|remove|delete|replace|edit)\b|\bmake (the |all )?(failing )?tests? pass\b)`)

// WantsChange reports whether a task asks for a change to the workspace,
// not for an answer: "Fix the off-by-one bug in Sum.", "Make the tests
// pass.", but not "Which test fails?" or "What does Sum return?".
func WantsChange(task string) bool { return changeRequest.MatchString(strings.TrimSpace(task)) }

// Task tells the gate the task of a run (see WantsChange). A new task
// starts its own reminder; edits of earlier tasks in the conversation do
// not count.
func (g *Gate) Task(task string) {
	g.wantsChange, g.everEdited, g.askedChange, g.fixAsks = WantsChange(task), false, false, 0
}

// Unchanged reports whether the task asks for a change and nothing has
// been edited since it was given.
func (g *Gate) Unchanged() bool { return g.wantsChange && !g.everEdited }

// New returns a gate for the check command (empty: any test command).
func New(check string) *Gate { return &Gate{Check: check} }

// Observe records an executed call.
func (g *Gate) Observe(s Step) {
	switch {
	case s.Edit && s.OK:
		g.dirty, g.verified, g.everEdited, g.stale = true, false, true, true
	case s.Command != "" && g.IsCheck(s.Command):
		g.failing, g.stale = !s.OK, false
		if s.OK {
			g.dirty, g.verified = false, true
		}
	}
}

// Failing reports whether the last check command that ran failed. An
// answer after it may be right (a task that asks which test fails), so the
// gate refuses it only for a task that asks for a change (AskFix); the
// outcome says so.
func (g *Gate) Failing() bool { return g.failing }

// FailsNow reports whether the last check command failed and nothing
// was edited since.
func (g *Gate) FailsNow() bool { return g.failing && !g.stale }

// Verified reports whether a check passed after the last edit.
func (g *Gate) Verified() bool { return g.verified }

// Edited reports whether the run changed the workspace and has not
// verified it since.
func (g *Gate) Edited() bool { return g.dirty }

// Answer judges a final answer now.
func (g *Gate) Answer() Verdict {
	switch {
	case g.Unchanged() && !g.askedChange:
		g.askedChange = true
		return AskChange
	case g.wantsChange && g.FailsNow() && g.fixAsks < MaxFixAsks:
		g.fixAsks++
		return AskFix
	case !g.dirty:
		return Accept
	case g.FailsNow():
		return Unverified // the check ran after the edit: nothing to ask
	case !g.asked:
		g.asked = true
		return Ask
	}
	return Unverified
}

// AskText is the note the agent sends when the gate asks for verification.
func (g *Gate) AskText() string {
	check := g.Check
	if check == "" {
		check = "the project's tests"
	}
	return "You changed files but did not run " + check + " since. Run it and answer only after it passes."
}

// AskFixText is the note the agent sends when the gate sends an answer
// back because the check fails.
func (g *Gate) AskFixText() string {
	check := g.Check
	if check == "" {
		check = "The check"
	}
	return check + " still fails, so the task is not done. Read what it printed, fix the code with edit_file, and run it again; answer only when it passes."
}

// AskChangeText is the note the agent sends when the gate reminds the
// model of a change the task asks for.
func (g *Gate) AskChangeText() string {
	return "The task asks for a change, and nothing has been edited yet. Make the change with edit_file or write_file, or say why it cannot be made."
}

// checkCommands are the commands that verify a change: tests, builds and
// vet-like checks of the common toolchains.
var checkCommands = regexp.MustCompile(`(^|[\s;&|(])(go (test|vet|build)|make( \S+)* (test|check)|npm (run )?test|pnpm test|yarn test|pytest|python3? -m (pytest|unittest)|mvn( -\S+)* (test|verify)|gradle( \S+)* test|\./gradlew( \S+)* test|cargo (test|check|build))\b`)

// IsCheck reports whether a shell command verifies the workspace: it runs
// the configured check, or, without one, a recognised test command.
func (g *Gate) IsCheck(command string) bool {
	c := strings.TrimSpace(command)
	if g.Check != "" {
		return strings.Contains(c, g.Check)
	}
	return checkCommands.MatchString(c)
}

// manifestLimit is the largest Makefile or package.json DetectCheck
// reads, 1 MiB; a larger one does not count.
const manifestLimit = 1 << 20

// DetectCheck returns the check command of the workspace at root: go test
// for a Go module, make test for a Makefile with a test target, npm test
// for a package.json with a test script, pytest for Python projects, mvn
// for Maven and cargo for Rust; "" when it finds none.
//
// The workspace may be a hostile repository, and this runs before the
// first step, so files are looked at as the tools look at them
// (package confined): beneath root, never through a link that leads out,
// only regular files read, at most manifestLimit bytes. A Makefile that is
// a FIFO, a link to /dev/zero or a gigabyte does not count, and costs
// neither a hang nor the memory.
func DetectCheck(root string) string {
	r, err := os.OpenRoot(root)
	if err != nil {
		return ""
	}
	defer r.Close()
	has := func(name string) bool {
		_, err := r.Stat(name)
		return err == nil
	}
	contains := func(name string, re *regexp.Regexp) bool {
		b, err := confined.ReadFileIn(r, name, manifestLimit)
		return err == nil && re.Match(b)
	}
	switch {
	case contains("Makefile", regexp.MustCompile(`(?m)^test:`)):
		return "make test"
	case has("go.mod"):
		return "go test ./..."
	case contains("package.json", regexp.MustCompile(`"test"\s*:`)):
		return "npm test"
	case has("pyproject.toml") || has("pytest.ini") || has("setup.cfg") || has("tests"):
		return "pytest"
	case has("pom.xml"):
		return "mvn -q test"
	case has("Cargo.toml"):
		return "cargo test"
	}
	return ""
}
