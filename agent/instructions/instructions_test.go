package instructions

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// write creates files under dir: path -> content.
func write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSeedInstructionFiles: seed 002 Example 8. The seed's page shows the
// program's "## path" headings as HTML (<h2 id="agents-md">AGENTS.md</h2>);
// the file keeps that text verbatim and the test reads the headings back
// as the program printed them (its "123 chars" counts "## ").
func TestSeedInstructionFiles(t *testing.T) {
	outer := t.TempDir()
	write(t, outer, map[string]string{
		"AGENTS.md":                    "Outside the workspace: not loaded.",
		"ws/AGENTS.md":                 "Build with mvn -q verify. Java 21.",
		"ws/services/orders/AGENTS.md": "Money is in cents (long). Never use double.",
		"ws/services/orders/CLAUDE.md": "Ignored: AGENTS.md exists in this directory.",
	})
	files, err := Load(filepath.Join(outer, "ws"), filepath.Join(outer, "ws", "services", "orders"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	prompt := Render(files)
	got := prompt + fmt.Sprintf("loaded %d files, %d chars\n", len(files), len(prompt))
	seed, err := os.ReadFile(filepath.Join("testdata", t.Name(), "seed002_example08.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`(?m)^<h2 id="[^"]*">(.*)</h2>$`).ReplaceAllString(string(seed), "## $1")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("seed 002 Example 8 mismatch (-seed +got):\n%s", diff)
	}
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		links map[string]string // link -> target, relative to the temp dir
		cwd   string
		cfg   Config
		want  []string // headings
	}{
		{name: "none", cwd: "a"},
		{name: "claude when no agents", files: map[string]string{"ws/CLAUDE.md": "c", "ws/a/GEMINI.md": "g"}, cwd: "a", want: []string{"CLAUDE.md", "a/GEMINI.md"}},
		{name: "order of names", files: map[string]string{"ws/.cursorrules": "r", "ws/CRUSH.md": "c"}, cwd: ".", want: []string{"CRUSH.md"}},
		{name: "copilot", files: map[string]string{"ws/.github/copilot-instructions.md": "p"}, cwd: "a", want: []string{".github/copilot-instructions.md"}},
		{name: "below cwd not loaded", files: map[string]string{"ws/a/b/AGENTS.md": "x"}, cwd: "a", want: nil},
		{name: "a directory is no file", files: map[string]string{"ws/AGENTS.md/x": "x", "ws/CLAUDE.md": "c"}, cwd: ".", want: []string{"CLAUDE.md"}},
		{name: "link inside followed", files: map[string]string{"ws/docs/rules.md": "r"}, links: map[string]string{"ws/AGENTS.md": "ws/docs/rules.md"}, cwd: ".", want: []string{"AGENTS.md"}},
		{name: "link outside skipped", files: map[string]string{"secret.md": "s", "ws/CLAUDE.md": "c"}, links: map[string]string{"ws/AGENTS.md": "secret.md"}, cwd: ".", want: []string{"CLAUDE.md"}},
		{name: "global first", files: map[string]string{"home/AGENTS.md": "g", "ws/AGENTS.md": "w"}, cwd: ".", cfg: Config{Global: []string{"GLOBAL"}}, want: []string{"GLOBAL", "AGENTS.md"}},
		{name: "own names", files: map[string]string{"ws/AGENTS.md": "a", "ws/LOOP.md": "l"}, cwd: ".", cfg: Config{Names: []string{"LOOP.md"}}, want: []string{"LOOP.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, tt.files)
			if err := os.MkdirAll(filepath.Join(dir, "ws", "a"), 0o755); err != nil {
				t.Fatal(err)
			}
			for link, target := range tt.links {
				if err := os.Symlink(filepath.Join(dir, target), filepath.Join(dir, link)); err != nil {
					t.Fatal(err)
				}
			}
			for i, g := range tt.cfg.Global {
				if g == "GLOBAL" {
					tt.cfg.Global[i] = filepath.Join(dir, "home", "AGENTS.md")
				}
			}
			files, err := Load(filepath.Join(dir, "ws"), filepath.Join(dir, "ws", tt.cwd), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range files {
				got = append(got, strings.Replace(f.Path, filepath.Join(dir, "home", "AGENTS.md"), "GLOBAL", 1))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Load headings mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadOutside(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"ws/x": "", "other/AGENTS.md": "no"})
	_, err := Load(filepath.Join(dir, "ws"), filepath.Join(dir, "other"), Config{})
	if !errors.Is(err, ErrOutside) {
		t.Errorf("Load(cwd outside) = %v, want ErrOutside", err)
	}
}

func TestLoadCut(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"AGENTS.md": strings.Repeat("é", 30)})
	files, err := Load(dir, dir, Config{MaxChars: 10})
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Repeat("é", 10) + "\n[20 chars cut from AGENTS.md]"; len(files) != 1 || files[0].Text != want || files[0].Cut != 20 {
		t.Errorf("Load(MaxChars 10) = %+v, want %q", files, want)
	}
}

// FuzzLoad: any working directory either is refused or yields files that
// are all inside the workspace, and Load never panics.
func FuzzLoad(f *testing.F) {
	dir := f.TempDir()
	write(f, dir, map[string]string{
		"AGENTS.md": "outside", "ws/AGENTS.md": "root", "ws/a/CLAUDE.md": "a", "ws/a/b/.cursorrules": "b",
	})
	if err := os.Symlink(filepath.Join(dir, "AGENTS.md"), filepath.Join(dir, "ws", "a", "b", "AGENTS.md")); err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{".", "a", "a/b", "..", "a/../..", "a/b/../../../ws/a", "/", "a//b/", "nope"} {
		f.Add(s)
	}
	ws := filepath.Join(dir, "ws")
	f.Fuzz(func(t *testing.T, rel string) {
		if strings.ContainsRune(rel, 0) {
			return
		}
		files, err := Load(ws, filepath.Join(ws, rel), Config{})
		if err != nil {
			return
		}
		for _, file := range files {
			if file.Text == "outside" || strings.HasPrefix(file.Path, "..") || filepath.IsAbs(file.Path) {
				t.Fatalf("Load(%q) loaded %+v from outside the workspace", rel, file)
			}
		}
	})
}
