package confined

import (
	"io/fs"
	"os"
	"slices"
	"strings"
)

// FS returns a file system of the tree beneath r for fs.WalkDir. A walk
// over it stays beneath r and opens directories only:
//
//   - ReadDir opens a directory with O_DIRECTORY and O_NONBLOCK, so a
//     FIFO or a file swapped in for a directory fails at once instead of
//     blocking; its entries come sorted by name.
//   - Stat follows symlinks only while they stay beneath r (as os.Root
//     does), and opens nothing.
//   - Open opens regular files only, as Open does.
//
// fs.WalkDir lists a symlink without following it, so a link to a
// directory outside is never entered. A directory that cannot be read is
// passed to the walk function with its error (fs.ErrPermission, say) for
// the caller to report.
func FS(r *os.Root) fs.FS { return rootFS{r} }

// rootFS is FS's file system.
type rootFS struct{ r *os.Root }

func (f rootFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &Error{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	file, _, err := Open(f.r, name)
	if err != nil {
		return nil, err
	}
	return file, nil
}

func (f rootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &Error{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	d, err := f.r.OpenFile(name, os.O_RDONLY|openNonblock|openDirectory, 0)
	if err != nil {
		return nil, openError(f.r, "readdir", name, err)
	}
	defer d.Close()
	entries, err := d.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	if err != nil {
		return entries, &Error{Op: "readdir", Path: name, Err: cause(err)}
	}
	return entries, nil
}

func (f rootFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &Error{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	info, err := f.r.Stat(name)
	if err != nil {
		return nil, openError(f.r, "stat", name, err)
	}
	return info, nil
}
