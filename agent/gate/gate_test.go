package gate

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGate(t *testing.T) {
	tests := []struct {
		name  string
		check string
		steps []Step
		want  []Verdict // verdicts of successive answers
	}{
		{"no edit", "", []Step{{Tool: "read_file", OK: true}}, []Verdict{Accept}},
		{"edit then answer", "", []Step{{Tool: "edit_file", OK: true, Edit: true}}, []Verdict{Ask, Unverified}},
		{"edit, test, answer", "", []Step{{Tool: "edit_file", OK: true, Edit: true}, {Tool: "shell", Command: "go test ./...", OK: true}}, []Verdict{Accept}},
		{"failing test does not verify", "", []Step{{Tool: "edit_file", OK: true, Edit: true}, {Tool: "shell", Command: "go test ./...", OK: false}}, []Verdict{Ask, Unverified}},
		{"edit after the test", "", []Step{{Tool: "shell", Command: "mvn -q test", OK: true}, {Tool: "write_file", OK: true, Edit: true}}, []Verdict{Ask}},
		{"a failed edit changes nothing", "", []Step{{Tool: "edit_file", OK: false, Edit: true}}, []Verdict{Accept}},
		{"other command", "", []Step{{Tool: "edit_file", OK: true, Edit: true}, {Tool: "shell", Command: "ls -la", OK: true}}, []Verdict{Ask}},
		{"configured check", "make check-all", []Step{{Tool: "edit_file", OK: true, Edit: true}, {Tool: "shell", Command: "go test ./...", OK: true}}, []Verdict{Ask}},
		{"configured check runs", "make check-all", []Step{{Tool: "edit_file", OK: true, Edit: true}, {Tool: "shell", Command: "cd x && make check-all", OK: true}}, []Verdict{Accept}},
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
		{Step{Tool: "shell", Command: "go test ./...", OK: false}, true},
		{Step{Tool: "shell", Command: "ls", OK: true}, true},
		{Step{Tool: "edit_file", OK: true, Edit: true}, true},
		{Step{Tool: "shell", Command: "go test ./...", OK: true}, false},
		{Step{Tool: "shell", Command: "go vet ./...", OK: false}, true},
	}
	for i, st := range steps {
		g.Observe(st.s)
		if got := g.Failing(); got != st.want {
			t.Errorf("after step %d (%+v): Failing() = %v, want %v", i+1, st.s, got, st.want)
		}
	}
}
