package grammar

import (
	"os"
	"path/filepath"
	"testing"
)

// readTestdata returns the text of testdata/<path>.
func readTestdata(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
