// Package golden compares a test's output with files under
// testdata/<TestName>/ of the package under test. It has two kinds of
// file, and a test says which one it reads:
//
//   - A golden file is loop's own output, checked by hand once against a
//     real reference. Check compares with it; `go test ./pkg -update`
//     rewrites it.
//   - A seed file is the printed output of an example in one of the
//     project's specification documents, the seeds (../shared/seeds),
//     copied verbatim: the reference itself. Seed compares with it and
//     never writes it, -update or not.
//
// Use it from a test:
//
//	func TestSeedExample4(t *testing.T) {
//		var out strings.Builder
//		// ... print what the seed's program prints ...
//		golden.Seed(t, "example4.txt", out.String())
//	}
//
// The file of a subtest lives in the folder of its top-level test.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata (never the seed files)")

// Path returns testdata/<top-level test name>/<file>.
func Path(t testing.TB, file string) string {
	return filepath.Join("testdata", strings.SplitN(t.Name(), "/", 2)[0], file)
}

// Check compares got with the golden file testdata/<test>/<file>, or
// rewrites the file with -update.
func Check(t testing.TB, file, got string) {
	t.Helper()
	path := Path(t, file)
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
		t.Fatalf("%v (run go test with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// Seed compares got with testdata/<test>/<file>, a seed's printed output
// copied verbatim: a reference, never rewritten.
func Seed(t testing.TB, file, got string) {
	t.Helper()
	path := Path(t, file)
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (copy the seed's printed lines into it once; -update never writes seed files)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (the seed's output, read-only) mismatch (-seed +got):\n%s", path, diff)
	}
}
