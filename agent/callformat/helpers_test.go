package callformat

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/testmodels"
)

// readTestdata reads testdata/<path>.
func readTestdata(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// loadTemplate compiles <name>.jinja of the conformance set.
func loadTemplate(t testing.TB, name, bos, eos string) *chat.Template {
	t.Helper()
	tmpl, err := chat.NewTemplate(testmodels.ChatTemplate(t, name), bos, eos)
	if err != nil {
		t.Fatalf("NewTemplate(%s) = %v", name, err)
	}
	return tmpl
}

// conformanceClock is the day the conformance renders use.
func conformanceClock() time.Time { return time.Date(2026, time.October, 3, 9, 41, 0, 0, time.UTC) }

// seedTools is the read_file tool of the specification's examples.
func seedTools(t testing.TB) []chat.Tool {
	t.Helper()
	tools, err := chat.ParseTools([]byte(`[{"type": "function", "function": {"name": "read_file", "description": "Read a text file from the workspace", "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "Path relative to the workspace root"}}, "required": ["path"]}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	return tools
}
