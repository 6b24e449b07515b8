// Package instructions loads a project's instruction files, the Markdown
// files in which a project tells agents its rules: the build command, the
// language version, the conventions (seed 002 Example 8).
//
// In each directory from the workspace root down to the working
// directory, the first of Names that exists is loaded: AGENTS.md, then
// CLAUDE.md, CRUSH.md, GEMINI.md, .cursorrules and
// .github/copilot-instructions.md, the names users already keep for other
// agents. Files come root first, so the most specific file comes last and
// reads as the refinement. Nothing outside the workspace is loaded (a file
// above it, or a link that leads out of it) unless it is configured as
// global:
//
//	files, err := instructions.Load(root, cwd, instructions.Config{})
//	text := instructions.Render(files) // "## AGENTS.md\n...\n\n## services/orders/AGENTS.md\n..."
//
// Render gives each file a heading with its path, so that the model can
// tell where a rule came from. The text goes into the system prompt and is
// paid on every request: its size belongs to the context budget, and short
// files of commands and rules fit small windows best.
package instructions

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Names are the instruction files tried in each directory, in order.
var Names = []string{"AGENTS.md", "CLAUDE.md", "CRUSH.md", "GEMINI.md", ".cursorrules", ".github/copilot-instructions.md"}

// DefaultMaxChars caps one file.
const DefaultMaxChars = 16_000

// Config chooses what is loaded. The zero value loads Names, no global
// file, each file cut at DefaultMaxChars.
type Config struct {
	// Names are tried in each directory, first match wins; nil means
	// Names. A name may have a slash (.github/copilot-instructions.md).
	Names []string
	// Global are files loaded first, wherever they are (the user's own
	// ~/.config/loop/AGENTS.md); a missing one is skipped.
	Global []string
	// MaxChars cuts a longer file, with a note; 0 means DefaultMaxChars,
	// negative means no cap.
	MaxChars int
}

// File is one loaded instruction file.
type File struct {
	// Path is the heading: the path relative to the workspace, with
	// slashes, or a global file's path as configured.
	Path string `json:"path"`
	// Text is the file's content, cut at MaxChars.
	Text string `json:"text"`
	// Cut is the number of characters cut.
	Cut int `json:"cut,omitempty"`
}

// ErrOutside is returned when the working directory is not inside the
// workspace.
var ErrOutside = errors.New("not inside the workspace")

// Load returns the global files, then the instruction files from
// workspace down to dir, one per directory. Links are followed only to
// files inside the workspace.
func Load(workspace, dir string, cfg Config) ([]File, error) {
	root, err := realDir(workspace)
	if err != nil {
		return nil, err
	}
	cwd, err := realDir(dir)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(root, cwd)
	if err != nil || !local(rel) {
		return nil, &fs.PathError{Op: "load instructions", Path: dir, Err: fmt.Errorf("%w %s", ErrOutside, workspace)}
	}
	var files []File
	for _, g := range cfg.Global {
		f, ok, err := readFile(g, g, cfg)
		if err != nil {
			return nil, err
		}
		if ok {
			files = append(files, f)
		}
	}
	for _, d := range chain(root, rel) {
		f, ok, err := first(root, d, cfg)
		if err != nil {
			return nil, err
		}
		if ok {
			files = append(files, f)
		}
	}
	return files, nil
}

// chain lists the directories from root down to root/rel.
func chain(root, rel string) []string {
	dirs := []string{root}
	if rel == "." {
		return dirs
	}
	d := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		d = filepath.Join(d, part)
		dirs = append(dirs, d)
	}
	return dirs
}

// first loads the first of the names that exists in dir.
func first(root, dir string, cfg Config) (File, bool, error) {
	names := cfg.Names
	if names == nil {
		names = Names
	}
	for _, name := range names {
		path := filepath.Join(dir, filepath.FromSlash(name))
		real, err := filepath.EvalSymlinks(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return File{}, false, &fs.PathError{Op: "load instructions", Path: path, Err: err}
		}
		if rel, err := filepath.Rel(root, real); err != nil || !local(rel) {
			continue // a link that leads out of the workspace
		}
		heading, _ := filepath.Rel(root, path)
		f, ok, err := readFile(real, filepath.ToSlash(heading), cfg)
		if err != nil || ok {
			return f, ok, err
		}
	}
	return File{}, false, nil
}

// readFile reads a regular file; ok is false when there is none.
func readFile(path, heading string, cfg Config) (File, bool, error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !info.Mode().IsRegular() {
		return File{}, false, nil
	}
	if err != nil {
		return File{}, false, &fs.PathError{Op: "load instructions", Path: path, Err: err}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return File{}, false, &fs.PathError{Op: "load instructions", Path: path, Err: err}
	}
	f := File{Path: heading, Text: strings.ToValidUTF8(string(b), "\uFFFD")}
	max := cfg.MaxChars
	if max == 0 {
		max = DefaultMaxChars
	}
	if n := utf8.RuneCountInString(f.Text); max > 0 && n > max {
		f.Cut = n - max
		f.Text = string([]rune(f.Text)[:max]) + fmt.Sprintf("\n[%d chars cut from %s]", f.Cut, heading)
	}
	return f, true, nil
}

// realDir returns dir absolute, its links resolved.
func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return "", &fs.PathError{Op: "load instructions", Path: dir, Err: err}
	}
	return abs, nil
}

// local reports whether a relative path stays inside its base.
func local(rel string) bool {
	return rel == "." || filepath.IsLocal(rel)
}

// Render writes the files for the system prompt, each under a heading
// with its path: "## path\n" + text + "\n\n".
func Render(files []File) string {
	var sb strings.Builder
	for _, f := range files {
		sb.WriteString("## " + f.Path + "\n" + f.Text + "\n\n")
	}
	return sb.String()
}
