package tools

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWindowSizes checks the derived sizes against the table of seed 002
// Example 13 (tool-cap and read-lines columns).
func TestWindowSizes(t *testing.T) {
	tests := []struct {
		window, toolCap, readLines int
	}{
		{8192, 1536, 38},
		{16384, 3072, 76},
		{32768, 6144, 153},
	}
	for _, tt := range tests {
		if got := ToolCapForWindow(tt.window); got != tt.toolCap {
			t.Errorf("ToolCapForWindow(%d) = %d, want %d", tt.window, got, tt.toolCap)
		}
		if got := ReadLinesForWindow(tt.window); got != tt.readLines {
			t.Errorf("ReadLinesForWindow(%d) = %d, want %d", tt.window, got, tt.readLines)
		}
	}
}

func TestConfigDefaults(t *testing.T) {
	ws := newWorkspace(t, nil, Config{})
	c := ws.Config()
	if c.Window != 8192 || c.ReadLines != 38 || c.ResultChars != 1536 || c.HeadLines != 10 || c.TailLines != 30 {
		t.Errorf("defaults = %+v", c)
	}
	ws = newWorkspace(t, nil, Config{Window: 32768, ReadLines: 7})
	if c := ws.Config(); c.ReadLines != 7 || c.ResultChars != 6144 {
		t.Errorf("Config{Window: 32768, ReadLines: 7} = ReadLines %d, ResultChars %d", c.ReadLines, c.ResultChars)
	}
}

// escapeWorkspace is a workspace with symlinks that lead out of it, into
// a sibling directory holding secret.txt.
func escapeWorkspace(t *testing.T) (*Workspace, string) {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	writeFiles(t, root, map[string]string{"src/main.go": "package main\n", "real/inner.txt": "inner\n"})
	writeFiles(t, outside, map[string]string{"secret.txt": "secret\n"})
	links := map[string]string{
		"out":         outside,                                // a directory outside
		"secret-link": filepath.Join(outside, "secret.txt"),   // a file outside
		"rel-out":     "../outside",                           // relative, outside
		"in-link":     "real",                                 // inside: fine
		"dangling":    filepath.Join(outside, "missing", "x"), // a missing target
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := NewWorkspace(root, Config{})
	if err != nil {
		t.Fatal(err)
	}
	return ws, outside
}

func TestResolve(t *testing.T) {
	ws, outside := escapeWorkspace(t)
	tests := []struct {
		name, path string
		want       string // relative to the root, when allowed
		err        error
	}{
		{name: "relative", path: "src/main.go", want: "src/main.go"},
		{name: "dot", path: ".", want: "."},
		{name: "missing file", path: "src/new/file.go", want: "src/new/file.go"},
		{name: "dotdot inside", path: "src/../real/inner.txt", want: "real/inner.txt"},
		{name: "absolute inside", path: filepath.Join(ws.Root(), "src/main.go"), want: "src/main.go"},
		{name: "symlink inside", path: "in-link/inner.txt", want: "real/inner.txt"},
		{name: "dotdot", path: "../outside/secret.txt", err: ErrOutside},
		{name: "dotdot deep", path: "src/../../outside", err: ErrOutside},
		{name: "absolute outside", path: filepath.Join(outside, "secret.txt"), err: ErrOutside},
		{name: "etc", path: "/etc/passwd", err: ErrOutside},
		{name: "symlinked dir", path: "out/secret.txt", err: ErrOutside},
		{name: "symlinked dir, new file", path: "out/new/file.txt", err: ErrOutside},
		{name: "symlinked file", path: "secret-link", err: ErrOutside},
		{name: "relative symlink", path: "rel-out/secret.txt", err: ErrOutside},
		{name: "dangling symlink", path: "dangling", err: ErrBrokenLink},
		{name: "below dangling symlink", path: "dangling/y", err: ErrBrokenLink},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ws.Resolve(tt.path)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Resolve(%q) = %q, %v, want error %v", tt.path, got, err, tt.err)
				}
				var e *Error
				if !errors.As(err, &e) || e.Path != tt.path {
					t.Errorf("Resolve(%q) error %#v does not name the path", tt.path, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Resolve(%q) error %v", tt.path, err)
			}
			if rel := ws.Rel(got); rel != tt.want {
				t.Errorf("Resolve(%q) = %q (%q), want %q", tt.path, got, rel, tt.want)
			}
		})
	}
}

func TestNewWorkspaceErrors(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"file": "x"})
	for _, p := range []string{filepath.Join(dir, "file"), filepath.Join(dir, "missing")} {
		if _, err := NewWorkspace(p, Config{}); err == nil {
			t.Errorf("NewWorkspace(%q) succeeded, want an error", p)
		}
	}
}
