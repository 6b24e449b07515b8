package tools

import (
	"context"
	"io/fs"
	"path/filepath"
	"slices"
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
// slashes, sorted: regular files and symlinks, outside the directories
// that list_files and grep skip (.git, node_modules, ...). A directory it
// cannot read is left out. complete is false, and the list cut, when the
// workspace has more than limit files; the walk then stops there.
func (w *Workspace) Files(ctx context.Context, limit int) (files []string, complete bool, err error) {
	complete = true
	err = filepath.WalkDir(w.root, func(name string, d fs.DirEntry, err error) error {
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && d != nil && d.IsDir():
			return filepath.SkipDir
		case err != nil || name == w.root:
			return nil
		case d.IsDir() && skipDir(d.Name()):
			return filepath.SkipDir
		case d.IsDir():
			return nil
		}
		if len(files) == limit {
			complete = false
			return filepath.SkipAll
		}
		files = append(files, w.Rel(name))
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	slices.Sort(files)
	return files, complete, nil
}
