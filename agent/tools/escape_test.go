package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/confined"
)

// TestEscapesAreResults runs every file tool on paths that leave the
// workspace: each answers with an error result naming the path, and
// nothing outside is read or written.
func TestEscapesAreResults(t *testing.T) {
	ws, outside := escapeWorkspace(t)
	tests := []struct {
		name string
		tool Tool
		args string
	}{
		{"read dotdot", ReadFile{}, `{"path": "../outside/secret.txt"}`},
		{"read absolute", ReadFile{}, `{"path": "` + filepath.Join(outside, "secret.txt") + `"}`},
		{"read symlink", ReadFile{}, `{"path": "secret-link"}`},
		{"read symlinked dir", ReadFile{}, `{"path": "out/secret.txt"}`},
		{"read relative symlinked dir", ReadFile{}, `{"path": "rel-out/secret.txt"}`},
		{"edit symlink", EditFile{}, `{"path": "secret-link", "old_string": "secret", "new_string": "owned"}`},
		{"edit symlinked dir", EditFile{}, `{"path": "out/secret.txt", "old_string": "secret", "new_string": "owned"}`},
		{"write symlink", WriteFile{}, `{"path": "secret-link", "content": "owned"}`},
		{"write dotdot", WriteFile{}, `{"path": "../outside/new.txt", "content": "x"}`},
		{"write symlinked dir", WriteFile{}, `{"path": "out/new.txt", "content": "x"}`},
		{"write dangling", WriteFile{}, `{"path": "dangling", "content": "x"}`},
		{"grep dotdot", Grep{}, `{"pattern": "secret", "path": ".."}`},
		{"grep symlinked dir", Grep{}, `{"pattern": "secret", "path": "out"}`},
		{"grep symlink", Grep{}, `{"pattern": "secret", "path": "secret-link"}`},
		{"list dotdot", ListFiles{}, `{"pattern": "../outside/*"}`},
		{"list absolute", ListFiles{}, `{"pattern": "` + outside + `/*"}`},
		{"list symlinked dir", ListFiles{}, `{"pattern": "out/*"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, tt.tool, ws, tt.args)
			if !r.IsError || !strings.Contains(r.Content, "refused") {
				t.Errorf("%s(%s) = %+v, want a refusal", tt.tool.Name(), tt.args, r)
			}
			if strings.Contains(r.Content, "secret\n") || strings.Contains(r.Content, "secret.txt:1") {
				t.Errorf("%s(%s) read the secret: %q", tt.tool.Name(), tt.args, r.Content)
			}
		})
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("the outside directory has %d entries, want only secret.txt", len(entries))
	}
	if data, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(data) != "secret\n" {
		t.Errorf("secret.txt = %q", data)
	}
}

// TestWalksDoNotFollowLinksOut checks that grep and list_files over the
// whole workspace do not read through a symlink that leads out.
func TestWalksDoNotFollowLinksOut(t *testing.T) {
	ws, _ := escapeWorkspace(t)
	r := call(t, Grep{}, ws, `{"pattern": "secret|inner"}`)
	if strings.Contains(r.Content, "secret") || !strings.Contains(r.Content, "real/inner.txt:1: inner") {
		t.Errorf("grep over the root = %q, want only real/inner.txt", r.Content)
	}
	r = call(t, ListFiles{}, ws, `{"pattern": "**"}`)
	if strings.Contains(r.Content, "secret.txt") {
		t.Errorf("list_files ** = %q, lists a file outside", r.Content)
	}
}

// TestWorkspaceReadFile: the harness's reads of workspace files
// (agent/paths) are confined as the tools' are.
func TestWorkspaceReadFile(t *testing.T) {
	ws, _ := escapeWorkspace(t)
	tests := []struct {
		name, path string
		limit      int64
		want       string
		err        error
	}{
		{name: "file", path: "real/inner.txt", want: "inner\n"},
		{name: "link inside", path: "in-link/inner.txt", want: "inner\n"},
		{name: "over the limit", path: "real/inner.txt", limit: 3, err: confined.ErrTooLarge},
		{name: "directory", path: "real", err: confined.ErrNotRegular},
		{name: "link outside", path: "secret-link", err: ErrOutside},
		{name: "dotdot", path: "../outside/secret.txt", err: ErrOutside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ws.ReadFile(tt.path, tt.limit)
			if string(got) != tt.want || !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
				t.Errorf("ReadFile(%q, %d) = %q, %v; want %q, %v", tt.path, tt.limit, got, err, tt.want, tt.err)
			}
		})
	}
}
