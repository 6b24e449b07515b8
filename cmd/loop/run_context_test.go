package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/window"
)

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
	var c contextFlags
	small := c.system(ws, window.Plan(8192), io.Discard)
	for _, want := range []string{"Answer in English.", "## CLAUDE.md\nRun go vet too."} {
		if !strings.Contains(small, want) {
			t.Errorf("the system prompt lacks %q:\n%s", want, small)
		}
	}
	if strings.Contains(small, "Repository map") {
		t.Error("a repository map on an 8K window")
	}
	if big := c.system(ws, window.Plan(32768), io.Discard); !strings.Contains(big, "Repository map") || !strings.Contains(big, "Total") {
		t.Errorf("no repository map on a 32K window:\n%s", big)
	}
	off := contextFlags{noFiles: true, noRepoMap: true}
	if s := off.system(ws, window.Plan(32768), io.Discard); strings.Contains(s, "CLAUDE") || strings.Contains(s, "Repository map") {
		t.Errorf("--no-context-files --no-repo-map still adds:\n%s", s)
	}
}
