package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// newWorkspace makes a temporary workspace holding files (path -> content).
func newWorkspace(t testing.TB, files map[string]string, cfg Config) *Workspace {
	t.Helper()
	dir := t.TempDir()
	writeFiles(t, dir, files)
	ws, err := NewWorkspace(dir, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// call runs tool with args (a JSON object) and fails the test on a Go error.
func call(t testing.TB, tool Tool, ws *Workspace, args string) Result {
	t.Helper()
	r, err := tool.Run(context.Background(), ws, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s.Run(%s): error %v", tool.Name(), args, err)
	}
	return r
}

// readBack is the content of a workspace file.
func readBack(t testing.TB, ws *Workspace, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ws.Root(), filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
