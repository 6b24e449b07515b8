package tools

import (
	"context"
	"io/fs"
	"os"
	"slices"

	"github.com/loopagent/loop/agent/confined"
)

// FileArgs is implemented by a tool whose arguments name files that must
// already exist when it runs: read_file's and edit_file's path. A caller
// may narrow those arguments to the workspace's files (Workspace.Files),
// as agent/paths does in the call grammar.
type FileArgs interface {
	// ExistingFileArgs are the top-level properties of Schema that name
	// an existing file.
	ExistingFileArgs() []string
}

// FileTextArgs is implemented by a tool with an argument that must be
// text the file named by another argument holds: edit_file's old_string,
// in the file named by path. A caller may narrow it to that file's
// substrings (agent/paths).
type FileTextArgs interface {
	// FileTextArg returns the text argument and the argument that names
	// its file.
	FileTextArg() (text, file string)
}

// FileTextArg is the named tool's FileTextArgs; ok is false for an
// unknown tool or one that has none.
func (s *Set) FileTextArg(name string) (text, file string, ok bool) {
	if f, ok := s.byName[name].(FileTextArgs); ok {
		text, file = f.FileTextArg()
		return text, file, true
	}
	return "", "", false
}

// ExistingFileArgs are the named tool's arguments that name an existing
// file (FileArgs); nil for an unknown tool or one that has none.
func (s *Set) ExistingFileArgs(name string) []string {
	if f, ok := s.byName[name].(FileArgs); ok {
		return f.ExistingFileArgs()
	}
	return nil
}

// Files lists the workspace's files, relative to the root with forward
// slashes, sorted: regular files, and symlinks to regular files inside
// the workspace, outside the directories that list_files and grep skip
// (.git, node_modules, ...). The walk stays beneath the root and opens
// directories only (confined.FS). complete is false, and the list cut,
// when the workspace has more than limit files (the walk then stops
// there) or when a directory below the root could not be read; a root
// that cannot be read is an error.
func (w *Workspace) Files(ctx context.Context, limit int) (files []string, complete bool, err error) {
	r, err := w.openRoot()
	if err != nil {
		return nil, false, err
	}
	defer r.Close()
	complete = true
	err = fs.WalkDir(confined.FS(r), ".", func(name string, d fs.DirEntry, err error) error {
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && name == ".":
			return err
		case err != nil:
			complete = false
			return nil
		case name == ".":
			return nil
		case d.IsDir() && skipDir(d.Name()):
			return fs.SkipDir
		case d.IsDir() || !w.isFile(r, name, d):
			return nil
		}
		if len(files) == limit {
			complete = false
			return fs.SkipAll
		}
		files = append(files, name)
		return nil
	})
	if err != nil {
		return nil, false, &Error{Op: "list files", Path: w.root, Err: err}
	}
	slices.Sort(files)
	return files, complete, nil
}

// isFile reports whether the walk's entry name is a file read_file can
// read: a regular file, or a symlink that Resolve follows to one inside
// the root. FIFOs, sockets and devices are not.
func (w *Workspace) isFile(r *os.Root, name string, d fs.DirEntry) bool {
	if d.Type().IsRegular() {
		return true
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	abs, err := w.Resolve(name)
	if err != nil {
		return false
	}
	info, err := r.Stat(w.Rel(abs))
	return err == nil && info.Mode().IsRegular()
}
