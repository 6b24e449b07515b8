package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/model"
)

// systemOf is the system prompt loop run's flags give an agent on a
// window of size tokens.
func systemOf(t *testing.T, args []string, size int) string {
	t.Helper()
	var f runFlags
	fs := newFlagSet("run", io.Discard)
	f.registerAll(fs)
	if err := parse(fs, args); err != nil {
		t.Fatal(err)
	}
	if err := f.validate(); err != nil {
		t.Fatal(err)
	}
	f.ctxSize = size
	f.jsonOut, f.transcript = true, filepath.Join(t.TempDir(), "t.jsonl")
	script, err := model.NewScript("hermes", nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := f.sampling.overrides()
	if err != nil {
		t.Fatal(err)
	}
	a, sinks, err := f.agent(script, o, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	sinks.close(io.Discard)
	return a.Messages()[0].Content
}

// TestSystemPrompt: the system prompt carries the user's global
// instructions, then the workspace's, each under its path; the repository
// map only from a 16K window; --no-context-files and --no-repo-map turn
// them off.
func TestSystemPrompt(t *testing.T) {
	ws, cfg := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(cfg, "loop"), 0o755))
	must(os.WriteFile(filepath.Join(cfg, "loop", "AGENTS.md"), []byte("Answer in English."), 0o644))
	must(os.WriteFile(filepath.Join(ws, "CLAUDE.md"), []byte("Run go vet too."), 0o644))
	must(os.WriteFile(filepath.Join(ws, "calc.go"), []byte("package calc\n\nfunc Total(p []int) int { return 0 }\n"), 0o644))
	small := systemOf(t, []string{"-C", ws}, 8192)
	for _, want := range []string{"Answer in English.", "## CLAUDE.md\nRun go vet too."} {
		if !strings.Contains(small, want) {
			t.Errorf("the system prompt lacks %q:\n%s", want, small)
		}
	}
	if strings.Contains(small, "Repository map") {
		t.Error("a repository map on an 8K window")
	}
	if big := systemOf(t, []string{"-C", ws}, 32768); !strings.Contains(big, "Repository map") || !strings.Contains(big, "Total") {
		t.Errorf("no repository map on a 32K window:\n%s", big)
	}
	if s := systemOf(t, []string{"-C", ws, "--no-context-files", "--no-repo-map"}, 32768); strings.Contains(s, "CLAUDE") || strings.Contains(s, "Repository map") {
		t.Errorf("--no-context-files --no-repo-map still adds:\n%s", s)
	}
}

// TestNestedInstructions: in a workspace below a repository's root, loop
// run loads the instruction files from the root down to the workspace,
// the nearest last, and none from a sibling directory.
func TestNestedInstructions(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	repo := t.TempDir()
	pkg := filepath.Join(repo, "svc", "billing")
	for _, d := range []string{filepath.Join(repo, ".git"), pkg, filepath.Join(repo, "other")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"AGENTS.md":             "Root rule: run make test.",
		"svc/AGENTS.md":         "Service rule: no new dependencies.",
		"svc/billing/AGENTS.md": "Billing rule: amounts are cents.",
		"other/AGENTS.md":       "Sibling rule: never seen.",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := systemOf(t, []string{"-C", pkg}, 8192)
	root, svc, billing := strings.Index(s, "Root rule"), strings.Index(s, "Service rule"), strings.Index(s, "Billing rule")
	if root < 0 || svc < root || billing < svc {
		t.Errorf("want the root's, the service's and the package's rules in that order:\n%s", s)
	}
	if strings.Contains(s, "Sibling rule") {
		t.Errorf("a sibling directory's instructions were loaded:\n%s", s)
	}
}
