package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGate(t *testing.T) {
	tests := []struct {
		name  string
		check string
		steps []Step
		want  []Verdict // verdicts of successive answers
	}{
		{"no edit", "", []Step{{OK: true}}, []Verdict{Accept}},
		{"edit then answer", "", []Step{{OK: true, Edit: true}}, []Verdict{Ask, Unverified}},
		{"edit, test, answer", "", []Step{{OK: true, Edit: true}, {Command: "go test ./...", OK: true}}, []Verdict{Accept}},
		{"failing test does not verify, nor is asked for again", "", []Step{{OK: true, Edit: true}, {Command: "go test ./...", OK: false}}, []Verdict{Unverified}},
		{"edit after the test", "", []Step{{Command: "mvn -q test", OK: true}, {OK: true, Edit: true}}, []Verdict{Ask}},
		{"a failed edit changes nothing", "", []Step{{OK: false, Edit: true}}, []Verdict{Accept}},
		{"other command", "", []Step{{OK: true, Edit: true}, {Command: "ls -la", OK: true}}, []Verdict{Ask}},
		{"configured check", "make check-all", []Step{{OK: true, Edit: true}, {Command: "go test ./...", OK: true}}, []Verdict{Ask}},
		{"configured check runs", "make check-all", []Step{{OK: true, Edit: true}, {Command: "cd x && make check-all", OK: true}}, []Verdict{Accept}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := New(tt.check)
			for _, s := range tt.steps {
				g.Observe(s)
			}
			for i, want := range tt.want {
				if got := g.Answer(); got != want {
					t.Errorf("answer %d = %v, want %v", i+1, got, want)
				}
			}
		})
	}
}

func TestIsCheck(t *testing.T) {
	g := New("")
	for cmd, want := range map[string]bool{
		"go test ./...": true, "cd pkg && go test -run X": true, "make test": true, "make -C sub test": true,
		"npm test": true, "npm run test": true, "pytest -q": true, "python -m pytest": true, "mvn -q test": true,
		"cargo test": true, "./gradlew test": true, "ls": false, "cat go_test.go": false, "echo go testing": false,
		"gotest": false,
	} {
		if got := g.IsCheck(cmd); got != want {
			t.Errorf("IsCheck(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestDetectCheck(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"go module", map[string]string{"go.mod": "module x\n"}, "go test ./..."},
		{"makefile test target wins", map[string]string{"go.mod": "module x\n", "Makefile": "build:\n\tgo build\ntest:\n\tgo test ./...\n"}, "make test"},
		{"makefile without test", map[string]string{"Makefile": "build:\n", "go.mod": "module x"}, "go test ./..."},
		{"npm", map[string]string{"package.json": `{"scripts": {"test": "jest"}}`}, "npm test"},
		{"maven", map[string]string{"pom.xml": "<project/>"}, "mvn -q test"},
		{"cargo", map[string]string{"Cargo.toml": "[package]"}, "cargo test"},
		{"python", map[string]string{"pyproject.toml": "[project]"}, "pytest"},
		{"nothing", map[string]string{"README.md": "hi"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := DetectCheck(dir); got != tt.want {
				t.Errorf("DetectCheck = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestFailing: the last check command decides; other commands and edits
// do not change it.
func TestFailing(t *testing.T) {
	g := New("")
	steps := []struct {
		s    Step
		want bool
	}{
		{Step{Command: "go test ./...", OK: false}, true},
		{Step{Command: "ls", OK: true}, true},
		{Step{OK: true, Edit: true}, true},
		{Step{Command: "go test ./...", OK: true}, false},
		{Step{Command: "go vet ./...", OK: false}, true},
	}
	for i, st := range steps {
		g.Observe(st.s)
		if got := g.Failing(); got != st.want {
			t.Errorf("after step %d (%+v): Failing() = %v, want %v", i+1, st.s, got, st.want)
		}
	}
}

func TestWantsChange(t *testing.T) {
	for task, want := range map[string]bool{
		"Fix the wrong operator bug in Charge in cart.go.":                         true,
		"CanRent in grades.go is false for exactly 16. Fix it.":                    true,
		"The tests fail. Find the bug and fix it.":                                 true,
		"go test fails in this package; fix it.":                                   true,
		"Make the tests pass.":                                                     true,
		"make the failing test pass":                                               true,
		"Please add a --verbose flag to main.go":                                   true,
		"Which test fails in this package?":                                        false,
		"Run the tests and tell me which one fails.":                               false,
		"What value does settings.go give MaxDepth?":                               false,
		"What does add return for 2 and 3?":                                        false,
		"The prefix fix in parse.go: does it handle empty input? Explain briefly.": false,
	} {
		if got := WantsChange(task); got != want {
			t.Errorf("WantsChange(%q) = %v, want %v", task, got, want)
		}
	}
}

// TestAskChange: an answer before any edit, on a task that asks for a
// change, gets one reminder; the second is accepted. An edit, or a task
// that asks a question, needs none; a new task starts over.
func TestAskChange(t *testing.T) {
	g := New("go test ./...")
	g.Task("Fix Sum in sum.go.")
	if v := g.Answer(); v != AskChange || !g.Unchanged() {
		t.Fatalf("first answer before an edit: %v (unchanged %v), want ask-change", v, g.Unchanged())
	}
	if v := g.Answer(); v != Accept {
		t.Errorf("second answer: %v, want accept", v)
	}
	g.Task("Fix Max in max.go.")
	g.Observe(Step{OK: true, Edit: true})
	g.Observe(Step{Command: "go test ./...", OK: true})
	if v := g.Answer(); v != Accept || g.Unchanged() {
		t.Errorf("answer after a verified edit: %v (unchanged %v), want accept", v, g.Unchanged())
	}
	g.Task("Which test fails?")
	if v := g.Answer(); v != Accept {
		t.Errorf("answer to a question: %v, want accept", v)
	}
	g.Task("Fix Min in min.go.")
	if v := g.Answer(); v != AskChange {
		t.Errorf("a new task after an edit of the last one: %v, want ask-change", v)
	}
}

// TestAskFix: on a task that asks for a change, an answer while the
// check it ran last fails, with no edit since, is sent back MaxFixAsks
// times, whether or not the model edited before that check; an edit
// after the failing check asks for the check instead; a question is
// answered however the check went.
func TestAskFix(t *testing.T) {
	g := New("go test ./...")
	g.Task("Fix Sum in sum.go.")
	g.Observe(Step{Command: "go test ./...", OK: false})
	if v := g.Answer(); v != AskChange {
		t.Fatalf("first answer before an edit: %v, want ask-change", v)
	}
	for i := range MaxFixAsks {
		if v := g.Answer(); v != AskFix || !g.FailsNow() {
			t.Fatalf("answer %d while the check fails: %v (fails now %v), want ask-fix", i+2, v, g.FailsNow())
		}
	}
	if v := g.Answer(); v != Accept {
		t.Errorf("answer after %d ask-fix: %v, want accept (the outcome says the check failed)", MaxFixAsks, v)
	}

	g.Task("Fix Max in max.go.")
	g.Observe(Step{OK: true, Edit: true})
	g.Observe(Step{Command: "go test ./...", OK: false})
	if v := g.Answer(); v != AskFix {
		t.Errorf("answer after an edit and a failing check: %v, want ask-fix", v)
	}
	g.Observe(Step{OK: true, Edit: true})
	if v := g.Answer(); v != Ask || g.FailsNow() {
		t.Errorf("answer after an edit since the failing check: %v (fails now %v), want ask", v, g.FailsNow())
	}
	g.Observe(Step{Command: "go test ./...", OK: true})
	if v := g.Answer(); v != Accept {
		t.Errorf("answer after a passing check: %v, want accept", v)
	}

	g.Task("Which test fails?")
	g.Observe(Step{Command: "go test ./...", OK: false})
	if v := g.Answer(); v != Accept {
		t.Errorf("answer to a question while the check fails: %v, want accept", v)
	}
	if text := g.AskFixText(); !strings.Contains(text, "go test ./... still fails") {
		t.Errorf("AskFixText() = %q, want it to name the check", text)
	}
}
