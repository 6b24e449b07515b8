package tools

import (
	"io/fs"
	"os"

	"github.com/loopagent/loop/agent/confined"
)

// How a tool touches a file. Resolve turns the model's path into one
// inside the root by name, for the messages the model reads (outside,
// broken link, empty path) and so that a symlink inside the workspace,
// absolute or relative, is followed to its target. The file is then
// opened by that path beneath an os.Root (package confined), once: a
// symlink or ".." swapped in after the check leads nowhere, because the
// kernel refuses to leave the root at open time. What is opened is checked
// on the descriptor (a regular file, not a FIFO, socket or device), and a
// write replaces the file by a rename instead of writing into it.

// openRoot opens the workspace root for one call. Files opened beneath it
// stay open after it is closed.
func (w *Workspace) openRoot() (*os.Root, error) {
	r, err := os.OpenRoot(w.root)
	if err != nil {
		return nil, &Error{Op: "open workspace", Path: w.root, Err: err}
	}
	return r, nil
}

// openRead resolves the path the model gave and opens the file beneath
// the root for reading: a regular file with its FileInfo, or the result
// that says why not. rel is the path shown to the model.
func (w *Workspace) openRead(tool, name string) (f *os.File, info fs.FileInfo, rel string, res Result, ok bool) {
	abs, res, ok := w.resolveResult(tool, name)
	if !ok {
		return nil, nil, "", res, false
	}
	rel = w.Rel(abs)
	r, err := w.openRoot()
	if err != nil {
		return nil, nil, rel, rootUnreadable(tool, err), false
	}
	defer r.Close()
	f, info, err = confined.Open(r, rel)
	if err != nil {
		return nil, nil, rel, describePathError(tool, rel, err), false
	}
	return f, info, rel, Result{}, true
}

// writeRel writes data to rel, a path Resolve returned made relative,
// beneath the root: through a temporary file and a rename
// (confined.WriteFile), so that a hard link is never written through and a
// symlink swapped in at rel is replaced, not followed. A symlink that
// Resolve followed to a file inside is left a link: its target is what
// rel names, and what is written. created reports a new file. With
// Config.Undo, what rel was goes into it first; a file that cannot be
// kept is not written.
func (w *Workspace) writeRel(tool, rel string, data []byte) (created bool, res Result, ok bool) {
	r, err := w.openRoot()
	if err != nil {
		return false, rootUnreadable(tool, err), false
	}
	defer r.Close()
	if u := w.cfg.Undo; u != nil {
		if err := u.keep(r, rel); err != nil {
			return false, errorResult("%s: %s was not changed: loop could not keep a copy of it to undo the change: %v", tool, rel, causeOf(err)), false
		}
	}
	created, err = confined.WriteFile(r, rel, data, 0o644)
	if err != nil {
		return false, describePathError(tool, rel, err), false
	}
	return created, Result{}, true
}

// ReadFile reads a workspace file for the harness (agent/paths reads the
// files the conversation read): name as a tool takes it, opened as the
// tools open files, at most limit bytes. A name outside the root, a file
// that is not regular or one over the limit is an error (an *Error, or a
// *confined.Error wrapping confined.ErrOutside, ErrNotRegular or
// ErrTooLarge).
func (w *Workspace) ReadFile(name string, limit int64) ([]byte, error) {
	abs, err := w.Resolve(name)
	if err != nil {
		return nil, err
	}
	r, err := w.openRoot()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return confined.ReadFileIn(r, w.Rel(abs), limit)
}

// rootUnreadable is the result when the workspace root cannot be opened.
func rootUnreadable(tool string, err error) Result {
	return errorResult("%s: the workspace root cannot be read: %v", tool, causeOf(err))
}
