//go:build unix

package confined

import (
	"io/fs"
	"os"
	"syscall"
)

// openNonblock makes opening a FIFO return at once instead of waiting for
// a writer; reads of regular files ignore it. openDirectory makes opening
// anything but a directory fail.
const (
	openNonblock  = syscall.O_NONBLOCK
	openDirectory = syscall.O_DIRECTORY
)

// keepOwner gives f the owner of old, where the process may (root); a
// failure leaves the file the process's own.
func keepOwner(f *os.File, old fs.FileInfo) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() && int(st.Gid) == os.Getegid() {
		return
	}
	f.Chown(int(st.Uid), int(st.Gid))
}
