package grammar

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// update rewrites golden files: go test ./grammar -update. Every golden test
// in the package shares this one flag.
var update = flag.Bool("update", false, "rewrite golden files in testdata")

// checkGolden compares got with the golden file testdata/<TestName>/<file>,
// where TestName is the top-level test, or rewrites the file with -update.
func checkGolden(t *testing.T, file, got string) {
	t.Helper()
	test, _, _ := strings.Cut(t.Name(), "/")
	path := filepath.Join("testdata", test, file)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./grammar -update writes it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// readTestdata returns the text of testdata/<path>.
func readTestdata(tb testing.TB, path string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}
