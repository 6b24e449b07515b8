package loop_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
)

// copyFixture copies testdata/fixture, a Go module whose test fails
// because of a one-line bug (the loop starts at 1), into a temporary
// workspace.
func copyFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"go.mod", "calc.go", "calc_test.go"} {
		b, err := os.ReadFile(filepath.Join("testdata", "fixture", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// events collects a run's events.
type events []transcript.Event

func (e *events) Emit(ev transcript.Event) { *e = append(*e, ev) }

func (e events) kinds(kind string) []transcript.Event {
	var out []transcript.Event
	for _, ev := range e {
		if ev.Kind == kind {
			out = append(out, ev)
		}
	}
	return out
}

var (
	readCalc = call(`{"name": "read_file", "arguments": {"path": "calc.go"}}`)
	editCalc = call(`{"name": "edit_file", "arguments": {"path": "calc.go", "old_string": "for i := 1; i", "new_string": "for i := 0; i"}}`)
	goTest   = call(`{"name": "shell", "arguments": {"command": "go test ./..."}}`)
	answer   = "Fixed: Total skipped the first price; the loop now starts at 0 and the test passes."
)

// TestFixtureRun fixes the fixture's bug with the real tools: a scripted
// model reads, edits, tests and answers; the run ends verified and the
// file really changed on disk. The second run's first edit has a trailing
// comma (repaired) and it then reads the file three times (a loop note),
// before it edits, tests and answers.
func TestFixtureRun(t *testing.T) {
	broken := strings.Replace(editCalc, `"for i := 0; i"}}`, `"for i := 0; i",}}`, 1)
	tests := []struct {
		name      string
		replies   []string
		afterNote []string
		repairs   int
		notes     int
	}{
		{"clean", []string{readCalc, editCalc, goTest, answer}, nil, 0, 0},
		{"repaired and looping", []string{readCalc, readCalc, readCalc, readCalc}, []string{broken, goTest, answer}, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyFixture(t)
			script := hermesScript(t, tt.replies, tt.afterNote)
			ws, err := tools.NewWorkspace(dir, tools.Config{})
			if err != nil {
				t.Fatal(err)
			}
			var evs events
			a, err := loop.New(script, loop.Settings{ToolSet: tools.Default(), Workspace: ws, Sink: &evs, NoContext: true})
			if err != nil {
				t.Fatal(err)
			}
			if a.Check() != "go test ./..." {
				t.Errorf("detected check %q, want go test ./...", a.Check())
			}
			out := a.Run(context.Background(), "TestTotal fails in calc.go. Make the test pass.")
			if out.Kind != loop.Verified {
				t.Fatalf("outcome %s, want done (verified); events: %+v", out, evs)
			}
			b, _ := os.ReadFile(filepath.Join(dir, "calc.go"))
			if !strings.Contains(string(b), "for i := 0; i") {
				t.Errorf("calc.go did not change on disk:\n%s", b)
			}
			if got := len(evs.kinds(transcript.KindRepair)); got != tt.repairs {
				t.Errorf("%d repairs, want %d", got, tt.repairs)
			}
			if got := len(evs.kinds(transcript.KindNote)); got != tt.notes {
				t.Errorf("%d notes, want %d", got, tt.notes)
			}
			if req := evs.kinds(transcript.KindRequest); req[0].ToolChoice != "required" || req[1].ToolChoice != "auto" {
				t.Errorf("tool_choice of the first two steps: %s, %s; want required (the task names a file), then auto",
					req[0].ToolChoice, req[1].ToolChoice)
			}
		})
	}
}

// TestNamesFile: a task that names a file requires a call on its first
// step; other tasks start with auto.
func TestNamesFile(t *testing.T) {
	for task, want := range map[string]string{
		"TestTotal fails in calc.go. Make the test pass.": "required",
		"fix src/app/main.py":                             "required",
		"read pom.xml and tell me the Java version":       "required",
		"What does this project do, e.g. in one line?":    "auto",
		"upgrade to v1.2 please":                          "auto",
		"Say hello.":                                      "auto",
	} {
		script, _ := model.NewScript("hermes", []model.Reply{{Text: "Hello."}})
		ws, _ := tools.NewWorkspace(t.TempDir(), tools.Config{})
		var evs events
		a, err := loop.New(script, loop.Settings{ToolSet: tools.Default(), Workspace: ws, Sink: &evs, NoContext: true})
		if err != nil {
			t.Fatal(err)
		}
		a.Run(context.Background(), task)
		if got := evs.kinds(transcript.KindRequest)[0].ToolChoice; got != want {
			t.Errorf("task %q: first tool_choice %s, want %s", task, got, want)
		}
	}
}

// TestDoneAfterFailingCheck: the model runs the failing test and answers
// without an edit. The gate accepts it (a task may ask which test fails),
// and the outcome says that the last check failed; after a passing check
// it does not.
func TestDoneAfterFailingCheck(t *testing.T) {
	for _, tt := range []struct {
		name    string
		replies []string
		reason  string
	}{
		{"failing", []string{goTest, "TestTotal fails."}, "the last go test ./... failed"},
		{"no check", []string{readCalc, "Total sums the prices."}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := tools.NewWorkspace(copyFixture(t), tools.Config{})
			if err != nil {
				t.Fatal(err)
			}
			a, err := loop.New(hermesScript(t, tt.replies, nil), loop.Settings{ToolSet: tools.Default(), Workspace: ws, NoContext: true})
			if err != nil {
				t.Fatal(err)
			}
			out := a.Run(context.Background(), "Run the tests of calc.go and say which fails.")
			if out.Kind != loop.Done || out.Reason != tt.reason {
				t.Errorf("outcome %q, reason %q; want done, reason %q", out.Kind, out.Reason, tt.reason)
			}
			if want := "done (" + tt.reason + "):"; tt.reason != "" && !strings.HasPrefix(out.String(), want) {
				t.Errorf("outcome line %q, want it to start %q", out, want)
			}
		})
	}
}

// fixCase is a run of the fixture's fix task, "TestTotal fails. Fix
// Total in calc.go.": a script of replies under guards and a check (""
// detects go test), and the outcome and notes it must end with.
type fixCase struct {
	name     string
	replies  []string
	guards   loop.Guards
	check    string
	kind     loop.Kind
	reason   string
	requests int
	notes    int
}

// runFixCases runs each case through loop.New with the real tools.
func runFixCases(t *testing.T, cases []fixCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := tools.NewWorkspace(copyFixture(t), tools.Config{})
			if err != nil {
				t.Fatal(err)
			}
			var evs events
			a, err := loop.New(hermesScript(t, tt.replies, nil), loop.Settings{ToolSet: tools.Default(), Workspace: ws, Guards: tt.guards, Sink: &evs, NoContext: true, Check: tt.check})
			if err != nil {
				t.Fatal(err)
			}
			out := a.Run(context.Background(), "TestTotal fails. Fix Total in calc.go.")
			if out.Kind != tt.kind || out.Reason != tt.reason || out.Requests != tt.requests {
				t.Errorf("outcome %q, reason %q, %d requests; want %q, %q, %d", out.Kind, out.Reason, out.Requests, tt.kind, tt.reason, tt.requests)
			}
			if got := len(evs.kinds(transcript.KindNote)); got != tt.notes {
				t.Errorf("%d notes, want %d: %+v", got, tt.notes, evs.kinds(transcript.KindNote))
			}
		})
	}
}

// TestAnswerWithoutChange: on a task that asks for a fix, an answer before
// any edit gets one reminder (a note, one more request); when the model
// then fixes the bug the run ends verified, and when it answers again
// the run ends done with the reason, even after a passing check (here go
// vet): with nothing changed it verified nothing. NoGate accepts the
// first answer.
func TestAnswerWithoutChange(t *testing.T) {
	const plan = "The loop should start at 0."
	const nothing = "the task asks for a change and nothing was edited"
	goVet := call(`{"name": "shell", "arguments": {"command": "go vet ./..."}}`)
	runFixCases(t, []fixCase{
		{"fixed after the reminder", []string{readCalc, plan, editCalc, goTest, answer}, loop.Guards{}, "", loop.Verified, "", 5, 1},
		{"answered again", []string{readCalc, plan, plan}, loop.Guards{}, "", loop.Done, nothing, 3, 1},
		{"no gate", []string{readCalc, plan}, loop.Guards{NoGate: true}, "", loop.Done, "", 2, 0},
		{"a passing check, nothing edited", []string{readCalc, plan, goVet, plan}, loop.Guards{}, "go vet ./...", loop.Done, nothing, 4, 1},
	})
}

// TestAnswerWhileFailing: on a task that asks for a fix, an answer while
// the check run last fails, with no edit since, is sent back (a note,
// one more request) up to gate.MaxFixAsks times: a model that then fixes
// the bug ends verified; one that edits, sees the check fail and keeps
// answering ends unverified with the reason that the check fails, without
// a request to run it again; one that never edits ends done with the
// reason. NoGate accepts the first answer.
func TestAnswerWhileFailing(t *testing.T) {
	const claim = "Fixed; the tests pass."
	badEdit := call(`{"name": "edit_file", "arguments": {"path": "calc.go", "old_string": "for i := 1; i", "new_string": "for i := 2; i"}}`)
	fixBad := call(`{"name": "edit_file", "arguments": {"path": "calc.go", "old_string": "for i := 2; i", "new_string": "for i := 0; i"}}`)
	runFixCases(t, []fixCase{
		{"fixed when sent back", []string{readCalc, badEdit, goTest, claim, fixBad, goTest, answer}, loop.Guards{}, "", loop.Verified, "", 7, 1},
		{"answered while failing", []string{readCalc, badEdit, goTest, claim, claim, claim}, loop.Guards{}, "", loop.Unverified, "answered while go test ./... fails", 6, 2},
		{"no edit", []string{goTest, claim, claim, claim, claim}, loop.Guards{}, "", loop.Done, "the last go test ./... failed", 5, 3},
		{"no gate", []string{readCalc, badEdit, goTest, claim}, loop.Guards{NoGate: true}, "", loop.Unverified, "no passing go test ./... after the last edit", 4, 0},
	})
}

// sourcesSeen is a model that answers with another and keeps each
// request's answer sources.
type sourcesSeen struct {
	model.Model
	answer [][]string
}

func (r *sourcesSeen) Complete(ctx context.Context, req model.Request) (*model.Response, error) {
	r.answer = append(r.answer, req.AnswerSources)
	return r.Model.Complete(ctx, req)
}

// TestAnswerSources checks that each request offers the results of the
// step before it as the texts an answer may copy: none on the first step,
// then the file read, then the edit's result, then go test's output.
func TestAnswerSources(t *testing.T) {
	dir := copyFixture(t)
	ws, err := tools.NewWorkspace(dir, tools.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rec := &sourcesSeen{Model: hermesScript(t, []string{readCalc, editCalc, goTest, answer}, nil)}
	a, err := loop.New(rec, loop.Settings{ToolSet: tools.Default(), Workspace: ws, NoContext: true})
	if err != nil {
		t.Fatal(err)
	}
	if out := a.Run(context.Background(), "TestTotal fails in calc.go. Make the test pass."); out.Kind != loop.Verified {
		t.Fatalf("outcome %s, want done (verified)", out)
	}
	if len(rec.answer) != 4 {
		t.Fatalf("%d requests, want 4", len(rec.answer))
	}
	for i, want := range []string{"", "func Total", "Edited calc.go", "ok"} {
		got := rec.answer[i]
		if want == "" && len(got) != 0 || want != "" && (len(got) != 1 || !strings.Contains(got[0], want)) {
			t.Errorf("request %d: answer sources %q, want one holding %q", i+1, got, want)
		}
	}
}

// TestSyntaxCheck: an edit that would break calc.go's syntax is refused
// and the file stays as it was, so the next edit finds its text and the
// run ends verified; with Guards.NoSyntaxCheck the broken edit is made,
// the next edit finds nothing, and the test run reports a build error.
// The workspace is the one New opens from Dir, as in loop run.
func TestSyntaxCheck(t *testing.T) {
	breaking := call(`{"name": "edit_file", "arguments": {"path": "calc.go", "old_string": "for i := 1; i", "new_string": "for i := 0; i ="}}`)
	for _, off := range []bool{false, true} {
		dir := copyFixture(t)
		var evs events
		a, err := loop.New(hermesScript(t, []string{breaking, editCalc, goTest, answer}, nil),
			loop.Settings{ToolSet: tools.Default(), Dir: dir, Sink: &evs, NoContext: true, Guards: loop.Guards{NoSyntaxCheck: off}})
		if err != nil {
			t.Fatal(err)
		}
		out := a.Run(context.Background(), "TestTotal fails in calc.go. Make the test pass.")
		b, _ := os.ReadFile(filepath.Join(dir, "calc.go"))
		first := evs.kinds(transcript.KindResult)[0]
		if !off {
			if !strings.Contains(first.Result, "edit_file: not written: calc.go would not parse (calc.go:7:") || !first.IsError {
				t.Errorf("first edit's result %q (error %v), want a refusal with the parser's position", first.Result, first.IsError)
			}
			if out.Kind != loop.Verified || !strings.Contains(string(b), "for i := 0; i < len") {
				t.Errorf("outcome %s, calc.go:\n%s\nwant verified, the loop starting at 0", out, b)
			}
			continue
		}
		if first.IsError || !strings.Contains(string(b), "for i := 0; i = < len") || out.Kind == loop.Verified {
			t.Errorf("NoSyntaxCheck: first result %q, outcome %s, calc.go:\n%s\nwant the broken edit made and no verified end", first.Result, out, b)
		}
	}
}

// TestWriteChecks: a write that the package check (a new test file of
// another package than calc.go's) or the names check (an edit using a
// name declared nowhere) refuses leaves calc.go building, so the edit
// that follows makes go test pass and the run ends verified; with
// Guards.NoSyntaxCheck the write is made and go test cannot build the
// package. The workspace is the one New opens from Dir, as in loop run.
func TestWriteChecks(t *testing.T) {
	tests := []struct {
		name, call string
		refusal    string // in the write's result
		broken     string // in go test's output when the write is made
		created    string // the file the write would create, if any
	}{
		{"package", call(`{"name": "write_file", "arguments": {"path": "more_test.go", "content": "package orders\n\nimport \"testing\"\n\nfunc TestMore(t *testing.T) {}\n"}}`),
			"more_test.go would say package orders, but the Go files beside it (calc.go) are package calc", "found packages", "more_test.go"},
		{"names", call(`{"name": "edit_file", "arguments": {"path": "calc.go", "old_string": "sum := 0", "new_string": "sum := offset"}}`),
			"calc.go would use offset (line 6), declared nowhere in package calc", "undefined: offset", ""},
	}
	for _, tt := range tests {
		for _, off := range []bool{false, true} {
			dir := copyFixture(t)
			var evs events
			a, err := loop.New(hermesScript(t, []string{tt.call, editCalc, goTest, answer, answer, answer}, nil),
				loop.Settings{ToolSet: tools.Default(), Dir: dir, Sink: &evs, NoContext: true, Guards: loop.Guards{NoSyntaxCheck: off}})
			if err != nil {
				t.Fatal(err)
			}
			out := a.Run(context.Background(), "TestTotal fails in calc.go. Make the test pass.")
			results := evs.kinds(transcript.KindResult)
			made := true // the file the write creates exists, where it creates one
			if tt.created != "" {
				_, err := os.Stat(filepath.Join(dir, tt.created))
				made = err == nil
			}
			if !off {
				if !results[0].IsError || !strings.Contains(results[0].Result, tt.refusal) {
					t.Errorf("%s: the write's result %q (error %v), want a refusal saying %q", tt.name, results[0].Result, results[0].IsError, tt.refusal)
				}
				if out.Kind != loop.Verified || (tt.created != "" && made) {
					t.Errorf("%s: outcome %s, %s created %v: want verified and nothing created", tt.name, out, tt.created, made)
				}
				continue
			}
			if results[0].IsError || !made || len(results) < 3 || !strings.Contains(results[2].Result, tt.broken) || out.Kind == loop.Verified {
				t.Errorf("%s, NoSyntaxCheck: results %+v, outcome %s: want the write made, go test failing with %q, no verified end", tt.name, results, out, tt.broken)
			}
		}
	}
}
