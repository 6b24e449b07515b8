package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sync"

	"github.com/loopagent/loop/agent/confined"
)

// Undo keeps what a task's file writes replaced, so that the task can be
// taken back (`loop run`'s /undo). Before edit_file or write_file first
// changes a file in a task, the workspace copies the file's bytes and
// mode into Undo's directory, or notes that the file (and the directories
// above it) did not exist; a later change of the same file in the task
// keeps nothing more, so Restore goes back to the bytes before the task.
// Begin starts the next task's record.
//
// The copies live outside the workspace (NewWorkspace refuses an Undo
// whose directory is inside the root), where the model's commands do not
// write. Restore writes and removes beneath the root only, as the tools
// do (package confined): a file replaced by a symlink out since is
// replaced again, never written through. Changes made by shell commands
// are not recorded. An Undo is safe for concurrent use.
type Undo struct {
	dir   string
	mu    sync.Mutex
	kept  map[string]keptFile // by the path relative to the root, with forward slashes
	order []string            // the paths of kept, first kept first
}

// keptFile is what one path was before the task's first write of it.
type keptFile struct {
	copy string      // the copy of its bytes; "" when it did not exist
	mode fs.FileMode // its permission bits
	dirs []string    // the directories above it that did not exist, deepest first
}

// NewUndo keeps its copies in a new directory under dir ("" for the
// system's temporary directory). Close removes them.
func NewUndo(dir string) (*Undo, error) {
	d, err := os.MkdirTemp(dir, "loop-undo-")
	if err != nil {
		return nil, &Error{Op: "undo", Path: dir, Err: err}
	}
	return &Undo{dir: d, kept: map[string]keptFile{}}, nil
}

// Dir is the directory of the copies.
func (u *Undo) Dir() string { return u.dir }

// Begin starts a new task: the last task's copies go, and with them what
// Restore could take back.
func (u *Undo) Begin() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.forget()
}

// Changed lists the files the task wrote so far, in the order it first
// wrote them.
func (u *Undo) Changed() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.order)
}

// Close removes the copies.
func (u *Undo) Close() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.kept, u.order = map[string]keptFile{}, nil
	return os.RemoveAll(u.dir)
}

func (u *Undo) forget() {
	for _, k := range u.kept {
		if k.copy != "" {
			os.Remove(k.copy)
		}
	}
	u.kept, u.order = map[string]keptFile{}, nil
}

// keep records rel before a write beneath r changes it, once per task. A
// path that leads out or is not a regular file keeps nothing: the write
// that follows refuses it or replaces it, as without an Undo. A regular
// file whose copy fails is an error, and the write does not happen.
func (u *Undo) keep(r *os.Root, rel string) error {
	rel = path.Clean(filepath.ToSlash(rel))
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, ok := u.kept[rel]; ok {
		return nil
	}
	info, err := r.Lstat(rel)
	var k keptFile
	switch {
	case errors.Is(err, fs.ErrNotExist):
		k.dirs = missingDirs(r, rel)
	case err != nil || !info.Mode().IsRegular():
		return nil
	default:
		if k.copy, err = u.copyOf(r, rel); err != nil {
			return err
		}
		k.mode = info.Mode().Perm()
	}
	u.kept[rel] = k
	u.order = append(u.order, rel)
	return nil
}

// copyOf copies the regular file rel beneath r into the undo directory.
func (u *Undo) copyOf(r *os.Root, rel string) (string, error) {
	src, _, err := confined.Open(r, rel)
	if err != nil {
		return "", err
	}
	defer src.Close()
	dst, err := os.CreateTemp(u.dir, "copy-")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(dst.Name())
		return "", err
	}
	return dst.Name(), nil
}

// missingDirs lists the directories above rel that do not exist beneath
// r, deepest first: those a write of rel creates.
func missingDirs(r *os.Root, rel string) []string {
	var dirs []string
	for d := path.Dir(rel); d != "." && d != "/"; d = path.Dir(d) {
		if _, err := r.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// Undone says what Restore did.
type Undone struct {
	// Restored are the files written back to their bytes before the
	// task, Removed those the task created, which are gone again.
	Restored, Removed []string
	// Failed says, one line a file, what could not be taken back.
	Failed []string
}

// Restore takes back the task's file writes in ws: every file it changed
// gets its bytes and mode before the task, every file it created is
// removed, and so is each directory it created that is empty again. The
// record is then spent: a second Restore finds nothing to do. Only a
// failure to open the workspace is an error; a file that cannot be taken
// back is listed in Failed and the others are still restored.
func (u *Undo) Restore(ws *Workspace) (Undone, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	var done Undone
	if len(u.order) == 0 {
		return done, nil
	}
	r, err := ws.openRoot()
	if err != nil {
		return done, err
	}
	defer r.Close()
	for _, rel := range slices.Backward(u.order) {
		k := u.kept[rel]
		if err := k.restore(r, rel); err != nil {
			done.Failed = append(done.Failed, fmt.Sprintf("%s: %v", rel, causeOf(err)))
		} else if k.copy == "" {
			done.Removed = append(done.Removed, rel)
		} else {
			done.Restored = append(done.Restored, rel)
		}
	}
	slices.Reverse(done.Restored)
	slices.Reverse(done.Removed)
	u.forget()
	return done, nil
}

// restore puts rel back beneath r as k recorded it.
func (k keptFile) restore(r *os.Root, rel string) error {
	if k.copy == "" {
		if err := r.Remove(rel); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		for _, d := range k.dirs {
			if r.Remove(d) != nil { // not empty: something else is in it now
				break
			}
		}
		return nil
	}
	data, err := os.ReadFile(k.copy)
	if err != nil {
		return fmt.Errorf("the copy is lost: %w", err)
	}
	if _, err := confined.WriteFile(r, rel, data, k.mode); err != nil {
		return err
	}
	return r.Chmod(rel, k.mode)
}
