package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkGoTest is the sandbox's cost on a check command: go test of a
// small module (build cache warm, test cache off).
func BenchmarkGoTest(b *testing.B) {
	benchCommand(b, []string{"go", "test", "-count=1", "./..."})
}

// BenchmarkTrue is the sandbox's fixed cost on one command: starting the
// supervisor and confining it.
func BenchmarkTrue(b *testing.B) {
	benchCommand(b, []string{"true"})
}

// benchCommand runs args in a small Go module, directly, under the
// supervisor, and in the sandbox.
func benchCommand(b *testing.B, args []string) {
	dir := b.TempDir()
	files := map[string]string{
		"go.mod":        "module example.com/small\n\ngo 1.22\n",
		"sum.go":        "package small\n\nfunc Sum(xs []int) (t int) {\n\tfor _, x := range xs {\n\t\tt += x\n\t}\n\treturn t\n}\n",
		"sum_test.go":   "package small\n\nimport \"testing\"\n\nfunc TestSum(t *testing.T) {\n\tif Sum([]int{1, 2, 3}) != 6 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n",
		".git/config":   "",
		"sub/sub.go":    "package sub\n\nfunc Two() int { return 2 }\n",
		"sub/x_test.go": "package sub\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal(\"two\")\n\t}\n}\n",
	}
	for name, text := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v: %s", err, out)
			}
		}
	})
	for _, c := range []struct {
		name string
		spec Spec
	}{{"supervisor", Spec{Off: true}}, {"sandbox", Spec{}}} {
		b.Run(c.name, func(b *testing.B) {
			if !c.spec.Off && Available() == 0 {
				b.Skip("no Landlock")
			}
			for b.Loop() {
				if code, err := Run(Command{Args: args, Dir: dir, Spec: c.spec}, nil); code != 0 || err != nil {
					b.Fatalf("exit %d, %v", code, err)
				}
			}
		})
	}
}
