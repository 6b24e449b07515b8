package window

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata (never the seed files)")

// checkSeed compares got with testdata/<test>/<file>, the printed output
// of a seed's program copied verbatim: a reference, never rewritten,
// -update or not.
func checkSeed(t *testing.T, file, got string) {
	t.Helper()
	path := filepath.Join("testdata", strings.SplitN(t.Name(), "/", 2)[0], file)
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (the seed's output, read-only) mismatch (-seed +got):\n%s", path, diff)
	}
}

// checkGolden compares got with testdata/<test>/<file>, or rewrites it
// with -update.
func checkGolden(t *testing.T, file, got string) {
	t.Helper()
	path := filepath.Join("testdata", strings.SplitN(t.Name(), "/", 2)[0], file)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./agent/context -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}
