package chat

import (
	"os"
	"path/filepath"
	"testing"

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
func loadTemplate(t testing.TB, name, bos, eos string) *Template {
	t.Helper()
	tmpl, err := NewTemplate(testmodels.ChatTemplate(t, name), bos, eos)
	if err != nil {
		t.Fatalf("NewTemplate(%s) = %v", name, err)
	}
	return tmpl
}
