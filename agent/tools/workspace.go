package tools

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopagent/loop/agent/confined"
	"github.com/loopagent/loop/agent/sandbox"
)

// Config sets a workspace's limits. The zero value means the documented
// defaults, derived from an 8,192-token window.
type Config struct {
	// Window is the model's context window in tokens. It sets ReadLines
	// and ResultChars when they are zero. Zero means 8192.
	Window int
	// ReadLines is read_file's default number of lines. Zero means
	// ReadLinesForWindow(Window): 38 at 8K, 76 at 16K, 153 at 32K.
	ReadLines int
	// ResultChars is the most characters a shell, grep or list_files
	// result keeps; read_file keeps twice as many. Zero means
	// ToolCapForWindow(Window): 1,536 at 8K.
	ResultChars int
	// HeadLines and TailLines are how many lines of a command's output the
	// shell tool keeps from the start and from the end, within
	// ResultChars. Zero means 10 and 30: build tools print the verdict
	// last.
	HeadLines, TailLines int
	// ShellTimeout is a command's time limit when the call gives none.
	// Zero means 2 minutes.
	ShellTimeout time.Duration
	// MaxShellTimeout caps the timeout a call may ask for, which the
	// shell tool's schema bounds to 1 to 600 seconds. Zero means 10
	// minutes.
	MaxShellTimeout time.Duration
	// MaxMatches is how many matching lines grep returns, and MaxFiles how
	// many paths list_files returns. Zero means 100 and 200.
	MaxMatches, MaxFiles int
	// Policy decides which shell commands run. The zero value allows
	// DefaultAllow, refuses DefaultDeny, and refuses the rest.
	Policy Policy
	// Sandbox confines what shell commands may write and reach. The zero
	// value is the kernel sandbox's default where the system has one
	// (sandbox.Spec).
	Sandbox sandbox.Spec
	// NoSyntaxCheck lets edit_file and write_file leave a Go or JSON file
	// that parsed in a state that does not. By default such a write is
	// refused with the parser's message, and the file is unchanged: a
	// small model's broken edit otherwise stays in the file, and every
	// later build and test reports it instead of the task's failure. The
	// same switch allows a Go file a package clause other than its
	// directory's, or a package-level name another file of its package
	// declares, or a use of a name declared nowhere, which the package
	// and names checks otherwise refuse for the same reason
	// (refusePackage, refuseUndefined).
	NoSyntaxCheck bool
	// Undo, when set, keeps each file as it was before edit_file or
	// write_file first changes it in a task, so that the task's writes
	// can be taken back (Undo.Restore). Its directory must be outside
	// the root. Nil keeps nothing.
	Undo *Undo
}

// ToolCapForWindow is the largest tool result for a context window, in
// characters: a sixteenth of the window in tokens at three characters per
// token. It is 1,536 at 8K.
func ToolCapForWindow(window int) int { return window / 16 * 3 }

// ReadLinesForWindow is read_file's default line limit for a context
// window: the tool cap at about 40 characters per source line. It is 38 at 8K, 76 at 16K and 153 at 32K.
func ReadLinesForWindow(window int) int { return ToolCapForWindow(window) / 40 }

// withDefaults fills the zero fields of c.
func (c Config) withDefaults() Config {
	if c.Window <= 0 {
		c.Window = 8192
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&c.ReadLines, max(ReadLinesForWindow(c.Window), 1))
	def(&c.ResultChars, max(ToolCapForWindow(c.Window), 256))
	def(&c.HeadLines, 10)
	def(&c.TailLines, 30)
	def(&c.MaxMatches, 100)
	def(&c.MaxFiles, 200)
	if c.ShellTimeout <= 0 {
		c.ShellTimeout = 2 * time.Minute
	}
	if c.MaxShellTimeout <= 0 {
		c.MaxShellTimeout = 10 * time.Minute
	}
	c.ShellTimeout = min(c.ShellTimeout, c.MaxShellTimeout)
	return c
}

// Workspace is the directory the tools work in, with the limits of a run.
// Every path a tool takes is confined to the root. A Workspace does not
// change after NewWorkspace and is safe for concurrent use.
//
// Confinement holds against a hostile repository, not only a confused
// model: files are opened beneath the root with an os.Root (package
// confined), so a symlink or ".." can never lead out at the moment of the
// open, even one swapped in after Resolve checked the path (by a shell
// command, say); only regular files are read, never a FIFO, socket or
// device; and writes replace a file by a rename, never writing through a
// hard link. See access.go.
type Workspace struct {
	root string // absolute, with symlinks resolved
	cfg  Config
}

// NewWorkspace opens dir as a workspace root. dir must be an existing
// directory.
func NewWorkspace(dir string, cfg Config) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &Error{Op: "open workspace", Path: dir, Err: err}
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, &Error{Op: "open workspace", Path: dir, Err: err}
	}
	info, err := os.Stat(root)
	if err != nil {
		return nil, &Error{Op: "open workspace", Path: dir, Err: err}
	}
	if !info.IsDir() {
		return nil, &Error{Op: "open workspace", Path: dir, Err: errors.New("not a directory")}
	}
	if u := cfg.Undo; u != nil {
		if d, err := filepath.EvalSymlinks(u.dir); err != nil || (&Workspace{root: root}).inside(d) {
			return nil, &Error{Op: "open workspace", Path: dir, Err: errors.New("the undo copies' directory must exist outside the workspace")}
		}
	}
	cfg = cfg.withDefaults()
	cfg.Policy.Sandboxed = Sandboxed(cfg.Sandbox)
	return &Workspace{root: root, cfg: cfg}, nil
}

// Sandboxed reports whether shell commands run in the kernel sandbox under
// spec: the system has one (sandbox.Available) and spec does not turn it
// off. Without it, every command but the safe ones is asked about.
func Sandboxed(spec sandbox.Spec) bool { return !spec.Off && sandbox.Available() > 0 }

// Root is the workspace's absolute root, with symlinks resolved.
func (w *Workspace) Root() string { return w.root }

// Config is the workspace's configuration with every default filled in.
func (w *Workspace) Config() Config { return w.cfg }

// Resolve turns a path the model wrote into an absolute path inside the
// root. name is relative to the root, or absolute inside it. Resolve
// refuses with an *Error wrapping ErrOutside a path that leaves the root
// by "..", by being absolute elsewhere, or through a symlink, and with
// ErrBrokenLink a path through a symlink whose target is missing. The
// returned path has its existing part's symlinks resolved; the rest of it
// does not exist yet.
//
// Resolve checks by name, at one moment: it chooses the message the model
// reads and follows symlinks inside the root (an absolute one too, which
// os.Root alone would refuse). It is not what keeps a tool inside the
// root: the tools open the path it returns beneath an os.Root, which
// refuses to leave the root whatever changed since (access.go).
func (w *Workspace) Resolve(name string) (string, error) {
	if strings.TrimSpace(name) == "" {
		return "", &Error{Op: "resolve", Path: name, Err: errors.New("empty path")}
	}
	if strings.ContainsRune(name, 0) {
		return "", &Error{Op: "resolve", Path: name, Err: errors.New("path contains a NUL byte")}
	}
	p := filepath.FromSlash(name)
	if !filepath.IsAbs(p) {
		// A relative path must stay inside lexically: "../x" is refused
		// even when a symlink would lead back in.
		if p = filepath.Join(w.root, p); !w.inside(p) {
			return "", &Error{Op: "resolve", Path: name, Err: ErrOutside}
		}
	}
	// An absolute path is judged after its symlinks are resolved, so that
	// /tmp/ws/x names the root /private/tmp/ws's x where /tmp is a link.
	p = filepath.Clean(p)
	existing, rest := splitExisting(p)
	resolved, err := filepath.EvalSymlinks(existing)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", &Error{Op: "resolve", Path: name, Err: ErrBrokenLink}
		}
		return "", &Error{Op: "resolve", Path: name, Err: err}
	}
	full := filepath.Join(resolved, rest)
	if !w.inside(full) {
		return "", &Error{Op: "resolve", Path: name, Err: ErrOutside}
	}
	return full, nil
}

// splitExisting splits p into its longest prefix that exists (a dangling
// symlink counts as existing, so that EvalSymlinks reports it) and the rest.
func splitExisting(p string) (existing, rest string) {
	existing = p
	for {
		if _, err := os.Lstat(existing); err == nil {
			return existing, rest
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return existing, rest
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
}

// inside reports whether the clean absolute path p is the root or below it.
func (w *Workspace) inside(p string) bool {
	rel, err := filepath.Rel(w.root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Rel is the path of abs relative to the root, with forward slashes, as
// tools show paths to the model. The root itself is ".".
func (w *Workspace) Rel(abs string) string {
	rel, err := filepath.Rel(w.root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(rel)
}

// resolveResult resolves name for a tool and turns a refusal into the
// result the model reads.
func (w *Workspace) resolveResult(tool, name string) (string, Result, bool) {
	p, err := w.Resolve(name)
	if err == nil {
		return p, Result{}, true
	}
	var e *Error
	switch {
	case strings.TrimSpace(name) == "":
		return "", errorResult("%s: path is empty; give a path relative to the workspace root, like src/main.go", tool), false
	case errors.Is(err, ErrOutside):
		return "", errorResult("%s: refused: %q is outside the workspace root; use a path relative to the root, like src/main.go", tool, name), false
	case errors.Is(err, ErrBrokenLink):
		return "", errorResult("%s: refused: %q goes through a symlink whose target is missing", tool, name), false
	case errors.As(err, &e):
		return "", errorResult("%s: %q: %v", tool, name, e.Err), false
	}
	return "", errorResult("%s: %q: %v", tool, name, err), false
}

// describePathError is the message for a failed file operation on rel:
// a missing or denied file, a name that led out of the root when opened
// (a symlink swapped in after Resolve), a directory, or a file that is
// not regular (a FIFO, socket or device, never read).
func describePathError(tool, rel string, err error) Result {
	var ce *confined.Error
	isConfined := errors.As(err, &ce)
	switch {
	case errors.Is(err, fs.ErrNotExist) && tool == EditFileName:
		return errorResult("%s: %s: no such file; write_file creates a file", tool, rel)
	case errors.Is(err, fs.ErrNotExist):
		return errorResult("%s: %s: no such file; list_files or grep can find the right path", tool, rel)
	case errors.Is(err, fs.ErrPermission):
		return errorResult("%s: %s: permission denied", tool, rel)
	case errors.Is(err, confined.ErrOutside):
		return errorResult("%s: refused: %q leads outside the workspace root; use a path relative to the root, like src/main.go", tool, rel)
	case isConfined && ce.Err == confined.ErrNotRegular && ce.Mode.IsDir() && tool == WriteFileName:
		return errorResult("%s: %s is a directory", tool, rel)
	case isConfined && ce.Err == confined.ErrNotRegular && ce.Mode.IsDir():
		return errorResult("%s: %s is a directory; list_files lists it", tool, rel)
	case isConfined && ce.Err == confined.ErrNotRegular:
		return errorResult("%s: %s is %s, not a regular file", tool, rel, confined.TypeName(ce.Mode))
	}
	return errorResult("%s: %s: %v", tool, rel, causeOf(err))
}

// causeOf is the innermost cause of err that has its own message, the
// errno under an *fs.PathError or a *confined.Error: "not a directory".
func causeOf(err error) error {
	for {
		var pe *fs.PathError
		var ce *confined.Error
		var te *Error
		switch {
		case errors.As(err, &ce) && ce.Err != confined.ErrNotRegular:
			err = ce.Err
		case errors.As(err, &pe):
			err = pe.Err
		case errors.As(err, &te):
			err = te.Err
		default:
			return err
		}
	}
}
