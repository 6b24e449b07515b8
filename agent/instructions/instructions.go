// Package instructions loads a project's instruction files, the Markdown
// files in which a project tells agents its rules: the build command, the
// language version, the conventions.
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
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/loopagent/loop/agent/confined"
)

// Names are the instruction files tried in each directory, in order.
var Names = []string{"AGENTS.md", "CLAUDE.md", "CRUSH.md", "GEMINI.md", ".cursorrules", ".github/copilot-instructions.md"}

// DefaultMaxChars caps one file.
const DefaultMaxChars = 16_000

// MaxBytes is the most of one file read, 1 MiB: a bound on what a
// hostile repository's file costs, far above DefaultMaxChars.
const MaxBytes = 1 << 20

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
	// negative means no cap but MaxBytes, which always holds.
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
//
// The workspace may be a hostile repository: its files are opened as the
// tools open them (package confined), beneath the workspace root, never
// through a link that leads out, and only regular files are read, so a
// FIFO named AGENTS.md is skipped instead of blocking the start, and a
// file is read only as far as the cut needs.
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
		f, ok, err := readGlobal(g, cfg)
		if err != nil {
			return nil, err
		}
		if ok {
			files = append(files, f)
		}
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, &fs.PathError{Op: "load instructions", Path: workspace, Err: err}
	}
	defer r.Close()
	for _, d := range chain(rel) {
		f, ok, err := first(r, d, cfg)
		if err != nil {
			return nil, err
		}
		if ok {
			files = append(files, f)
		}
	}
	return files, nil
}

// chain lists the directories from the root down to rel, relative to the
// root with slashes: ".", "a", "a/b".
func chain(rel string) []string {
	dirs := []string{"."}
	if rel == "." {
		return dirs
	}
	d := "."
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		d = path.Join(d, part)
		dirs = append(dirs, d)
	}
	return dirs
}

// first loads the first of the names that is a regular file in dir, a
// directory relative to r. A name that is missing, a link that leads out
// of the workspace, a directory or a FIFO is passed over. A link is
// resolved by name first, so that one inside the workspace is followed
// even when absolute, which os.Root alone refuses; the file is then
// opened beneath r, which refuses to leave the root whatever changed.
func first(r *os.Root, dir string, cfg Config) (File, bool, error) {
	names := cfg.Names
	if names == nil {
		names = Names
	}
	for _, name := range names {
		heading := path.Join(dir, name)
		real, err := filepath.EvalSymlinks(filepath.Join(r.Name(), filepath.FromSlash(heading)))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		if err != nil {
			return File{}, false, &fs.PathError{Op: "load instructions", Path: heading, Err: err}
		}
		rel, err := filepath.Rel(r.Name(), real)
		if err != nil || !local(rel) {
			continue // a link that leads out of the workspace
		}
		f, info, err := confined.Open(r, filepath.ToSlash(rel))
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, confined.ErrOutside), errors.Is(err, confined.ErrNotRegular):
			continue
		case err != nil:
			return File{}, false, &fs.PathError{Op: "load instructions", Path: heading, Err: err}
		}
		file, err := readText(f, info.Size(), heading, cfg)
		f.Close()
		return file, err == nil, err
	}
	return File{}, false, nil
}

// readGlobal reads a global file, the user's own, wherever its links
// lead; ok is false when there is none, or it is not a regular file.
func readGlobal(name string, cfg Config) (File, bool, error) {
	real, err := filepath.EvalSymlinks(name)
	if errors.Is(err, fs.ErrNotExist) {
		return File{}, false, nil
	}
	if err != nil {
		return File{}, false, &fs.PathError{Op: "load instructions", Path: name, Err: err}
	}
	r, err := os.OpenRoot(filepath.Dir(real))
	if err != nil {
		return File{}, false, &fs.PathError{Op: "load instructions", Path: name, Err: err}
	}
	defer r.Close()
	f, info, err := confined.Open(r, filepath.Base(real))
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, confined.ErrNotRegular):
		return File{}, false, nil
	case err != nil:
		return File{}, false, &fs.PathError{Op: "load instructions", Path: name, Err: err}
	}
	defer f.Close()
	file, err := readText(f, info.Size(), name, cfg)
	return file, err == nil, err
}

// readText reads an instruction file of size bytes, at most MaxBytes of
// it, and cuts it at MaxChars with a note. Bytes past MaxBytes, never
// read, count one character each in Cut.
func readText(f io.Reader, size int64, heading string, cfg Config) (File, error) {
	maxChars := cfg.MaxChars
	if maxChars == 0 {
		maxChars = DefaultMaxChars
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxBytes))
	if err != nil {
		return File{}, &fs.PathError{Op: "load instructions", Path: heading, Err: err}
	}
	unread := int(min(max(size-int64(len(b)), 0), math.MaxInt))
	if unread > 0 {
		b = b[:fullRunes(b)]
	}
	text := strings.ToValidUTF8(string(b), "\uFFFD")
	n := utf8.RuneCountInString(text)
	keep := n
	if maxChars > 0 {
		keep = min(n, maxChars)
	}
	file := File{Path: heading, Text: text}
	if file.Cut = n - keep + unread; file.Cut > 0 {
		file.Text = string([]rune(text)[:keep]) + fmt.Sprintf("\n[%d chars cut from %s]", file.Cut, heading)
	}
	return file, nil
}

// fullRunes is the length of b without a character cut off at its end.
func fullRunes(b []byte) int {
	for i := len(b) - 1; i >= max(len(b)-utf8.UTFMax, 0); i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
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
