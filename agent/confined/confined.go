// Package confined reads and writes files beneath a directory that may
// belong to an attacker: a cloned repository whose files are symlinks
// out of it, FIFOs, devices or gigabytes of one line. Everything loop
// opens in a workspace, for a tool or on its own (the check command's
// Makefile, AGENTS.md, the repository map's sources), goes through here.
//
// Four rules, each closing a way a hostile tree could hurt the agent:
//
//   - A name is opened once, beneath an os.Root. The kernel resolves it
//     one component at a time (openat with O_NOFOLLOW), and a symlink or
//     ".." that leads out of the root fails at that moment: there is no
//     check by name followed by a use by name, so a link swapped in
//     between the two cannot lead out. Symlinks that stay inside work;
//     an absolute symlink fails even when it points back inside, so a
//     caller that wants those resolves the name first (tools.Workspace
//     does).
//   - A file is opened with O_NONBLOCK, so that opening a FIFO returns at
//     once, and is checked on the open descriptor (fstat): anything but a
//     regular file (FIFO, socket, device, directory) is refused with
//     ErrNotRegular before a byte is read.
//   - A read has a limit in bytes. ReadFileIn refuses a larger file with
//     ErrTooLarge instead of growing a buffer to the size of /dev/zero.
//   - A write goes to a new temporary file in the same directory, then a
//     rename over the name. A hard link to a file outside is replaced in
//     the directory, never written through, and a half-written file is
//     never seen under the name.
//
// The common calls:
//
//	r, _ := os.OpenRoot(root)
//	data, err := confined.ReadFileIn(r, "Makefile", 1<<20)
//	switch {
//	case errors.Is(err, confined.ErrNotRegular), errors.Is(err, confined.ErrTooLarge), errors.Is(err, confined.ErrOutside):
//		// skip it; err names the file and why
//	}
//
//	f, info, err := confined.Open(r, "src/main.go") // a regular file, or an error
//	created, err := confined.WriteFile(r, "src/main.go", data, 0o644)
//	err = fs.WalkDir(confined.FS(r), ".", fn) // opens directories only
//
// Errors are *Error values (Op, Path, Err) like fs.PathError; the
// sentinels ErrOutside, ErrNotRegular and ErrTooLarge say which rule
// refused. A missing file still matches fs.ErrNotExist and a denied one
// fs.ErrPermission.
package confined

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Error is a refused or failed file operation beneath a root.
type Error struct {
	Op   string // "open", "read", "write", ...
	Path string // the name, relative to the root
	// Mode is the file's type when Err is ErrNotRegular (fs.ModeNamedPipe
	// for a FIFO); zero otherwise.
	Mode fs.FileMode
	Err  error
}

func (e *Error) Error() string {
	if e.Err == ErrNotRegular {
		return e.Op + " " + e.Path + ": " + TypeName(e.Mode) + ", not a regular file"
	}
	return e.Op + " " + e.Path + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Sentinels that an *Error wraps.
var (
	// ErrOutside is a name that leads out of the root: "..", an absolute
	// path, or a symlink whose target is outside (or absolute).
	ErrOutside = errors.New("leads outside the root")
	// ErrNotRegular is a FIFO, socket, device or directory where a
	// regular file was wanted. Error.Mode holds its type.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is a file over the caller's limit.
	ErrTooLarge = errors.New("file too large")
)

// DefaultLimit is the read limit when a caller passes zero or less.
const DefaultLimit = 8 << 20

// TypeName names a file type for a message: "a FIFO", "a socket", "a
// character device", "a directory", ...
func TypeName(mode fs.FileMode) string {
	switch t := mode.Type(); {
	case t == 0:
		return "a regular file"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeSymlink != 0:
		return "a symlink"
	case t&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	}
	return "an irregular file"
}

// Open opens name beneath r for reading: a regular file, checked on the
// open descriptor, with its FileInfo. Anything else is refused with an
// *Error wrapping ErrNotRegular, a name leading out of r with ErrOutside.
// Opening never blocks: O_NONBLOCK makes a FIFO's open return at once.
func Open(r *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := r.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, openError(r, "open", name, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, &Error{Op: "stat", Path: name, Err: cause(err)}
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, nil, &Error{Op: "open", Path: name, Mode: info.Mode().Type(), Err: ErrNotRegular}
	}
	return f, info, nil
}

// openError turns os.Root's error for name into an *Error. A socket
// cannot be opened at all (ENXIO); a stat, which opens nothing, says what
// it is, so the message is the same as for a FIFO.
func openError(r *os.Root, op, name string, err error) error {
	if escapes(err) {
		return &Error{Op: op, Path: name, Err: ErrOutside}
	}
	if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
		if info, serr := r.Stat(name); serr == nil && !info.Mode().IsRegular() {
			return &Error{Op: op, Path: name, Mode: info.Mode().Type(), Err: ErrNotRegular}
		}
	}
	return &Error{Op: op, Path: name, Err: cause(err)}
}

// escapes reports whether err is os.Root's refusal of a name that leads
// out of the root. The os package does not export that error (its text is
// "path escapes from parent"), so the text is matched; TestOpenOutside
// fails if it changes.
func escapes(err error) bool {
	for err != nil {
		if err.Error() == "path escapes from parent" {
			return true
		}
		err = errors.Unwrap(err)
	}
	return false
}

// cause strips the *fs.PathError that os wraps around an errno, so that an
// *Error names the path once.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// ReadFileIn reads the regular file name beneath the open root r, at most
// limit bytes (DefaultLimit when limit <= 0); a larger file is refused
// with ErrTooLarge without being read.
func ReadFileIn(r *os.Root, name string, limit int64) ([]byte, error) {
	f, info, err := Open(r, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, name, info.Size(), limit)
}

// ReadAll reads f, a file of size bytes named name, to its end, holding at
// most limit bytes (DefaultLimit when limit <= 0). A file over the limit,
// by its size or because it grew while read, is refused with ErrTooLarge.
func ReadAll(f io.Reader, name string, size, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	if size > limit {
		return nil, tooLarge(name, limit)
	}
	data := make([]byte, 0, max(size, 0)+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if int64(len(data)) > limit {
			return nil, tooLarge(name, limit)
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, &Error{Op: "read", Path: name, Err: cause(err)}
		}
	}
}

// tooLarge is the refusal of a file over limit bytes.
func tooLarge(name string, limit int64) error {
	return &Error{Op: "read", Path: name, Err: fmt.Errorf("%w: over the limit of %d bytes", ErrTooLarge, limit)}
}
