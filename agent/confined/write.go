package confined

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"strconv"
	"syscall"
)

// WriteFile writes data to name beneath r: into a new temporary file in
// name's directory, then renamed over name. It makes the directories
// above name (mode 0755) and reports whether name is new.
//
// What is at name is replaced, never written through. An existing regular
// file keeps its permission bits (and, where the process may, its owner);
// a hard link to another file becomes a file of its own, so the other
// name keeps its content; a symlink, FIFO or device at name is replaced by
// the new file. A caller that wants to write a symlink's target resolves
// the link first. A directory at name is refused with ErrNotRegular. A
// new file gets perm, less the umask. The data is not synced to disk: a
// crash may lose the write, but no reader ever sees half of it.
func WriteFile(r *os.Root, name string, data []byte, perm fs.FileMode) (created bool, err error) {
	dir, base := path.Split(path.Clean(name))
	if base == "" || base == "." || base == ".." || path.IsAbs(name) {
		return false, &Error{Op: "write", Path: name, Err: fs.ErrInvalid}
	}
	old, err := r.Lstat(name)
	switch {
	case err == nil && old.IsDir():
		return false, &Error{Op: "write", Path: name, Mode: fs.ModeDir, Err: ErrNotRegular}
	case err == nil:
		if old.Mode().IsRegular() {
			perm = old.Mode().Perm()
		} else {
			old = nil // replaced, keeps nothing
		}
	case escapes(err):
		return false, &Error{Op: "write", Path: name, Err: ErrOutside}
	case errors.Is(err, fs.ErrNotExist):
		created = true
	}
	if dir != "" {
		if err := r.MkdirAll(dir, 0o755); err != nil {
			if errors.Is(err, fs.ErrExist) {
				err = syscall.ENOTDIR // os.Root says a file is in the way so
			}
			return false, openError(r, "write", name, err)
		}
	}
	tmp, err := writeTemp(r, dir, data, perm, old)
	if err != nil {
		return false, &Error{Op: "write", Path: name, Err: cause(err)}
	}
	if err := r.Rename(tmp, name); err != nil {
		r.Remove(tmp)
		return false, openError(r, "write", name, err)
	}
	return created, nil
}

// writeTemp writes data to a new file in dir, named so that no existing
// file is touched (O_EXCL, which never follows a symlink), and gives it
// perm exactly and, when old is a regular file, old's owner. It returns
// the file's name.
func writeTemp(r *os.Root, dir string, data []byte, perm fs.FileMode, old fs.FileInfo) (string, error) {
	var f *os.File
	var name string
	for range 100 {
		name = dir + ".loop-" + strconv.FormatUint(rand.Uint64(), 36) + ".tmp"
		var err error
		f, err = r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	if f == nil {
		return "", fs.ErrExist
	}
	_, err := f.Write(data)
	if err == nil && old != nil {
		// The umask may have cleared bits the old file had; its owner
		// may differ when root edits another user's file.
		err = f.Chmod(perm)
		keepOwner(f, old)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		r.Remove(name)
		return "", err
	}
	return name, nil
}
