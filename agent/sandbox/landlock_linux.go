package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Available is the version of the kernel sandbox: on Linux the kernel's
// Landlock ABI, 0 when it has none (or Landlock is disabled at boot); on
// macOS 1 when sandbox-exec is there; elsewhere 0.
func Available() int {
	abiOnce.Do(func() {
		v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
		if errno == 0 {
			abi = int(v)
		}
	})
	return abi
}

var (
	abiOnce sync.Once
	abi     int
)

// fsWrite are the access rights that write, by the ABI that brought them.
// The sandbox handles these and no reading right: a command reads what
// its user can read.
func fsWrite(abi int) uint64 {
	rights := uint64(unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_REMOVE_DIR |
		unix.LANDLOCK_ACCESS_FS_REMOVE_FILE | unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
		unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK | unix.LANDLOCK_ACCESS_FS_MAKE_FIFO |
		unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK | unix.LANDLOCK_ACCESS_FS_MAKE_SYM)
	if abi >= 2 {
		// Without REFER handled, a link or rename across directories is
		// refused outright; with it, only into and out of writable ones.
		rights |= unix.LANDLOCK_ACCESS_FS_REFER
	}
	if abi >= 3 {
		rights |= unix.LANDLOCK_ACCESS_FS_TRUNCATE
	}
	return rights
}

// fileRights are the rights that a rule on a file (not a directory) may
// grant.
const fileRights = unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_TRUNCATE

// writable lists where a command may write besides the workspace: the temp
// directory, the Go build cache, spec's directories, and the device files
// every shell writes to.
func writable(spec Spec) (dirs, files []string, err error) {
	if tmp, err := filepath.EvalSymlinks(os.TempDir()); err == nil {
		dirs = append(dirs, tmp)
	}
	if cache := goBuildCache(); cache != "" {
		dirs = append(dirs, cache)
	}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		dirs = append(dirs, "/dev/shm")
	}
	for _, d := range spec.Writable {
		abs, err := filepath.Abs(d)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err == nil {
			var fi os.FileInfo
			if fi, err = os.Stat(abs); err == nil && !fi.IsDir() {
				err = errors.New("not a directory")
			}
		}
		if err != nil {
			return nil, nil, &Error{Op: "writable", Arg: d, Err: err}
		}
		dirs = append(dirs, abs)
	}
	for _, f := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"} {
		if _, err := os.Stat(f); err == nil {
			files = append(files, f)
		}
	}
	return dirs, files, nil
}

// goBuildCache is the Go build cache the toolchain would use, created if
// missing so that a rule can name it; "" when there is none.
func goBuildCache() string {
	dir := os.Getenv("GOCACHE")
	if dir == "off" {
		return ""
	}
	if dir == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(base, "go-build")
	}
	if os.MkdirAll(dir, 0o777) != nil {
		return ""
	}
	if dir, err := filepath.EvalSymlinks(dir); err == nil {
		return dir
	}
	return ""
}

// confine restricts this thread, and so the processes it starts: no new
// privileges, Landlock's rules, and without AllowNet the seccomp filter.
func confine(p plan) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	v := Available()
	attr := unix.LandlockRulesetAttr{Handled_access_fs: fsWrite(v)}
	if !p.AllowNet && v >= 4 {
		attr.Handled_access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
	}
	if v >= 6 {
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
	}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	if err := addRules(int(fd), p, attr.Handled_access_fs); err != nil {
		return err
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock restrict: %w", errno)
	}
	if !p.AllowNet {
		return denySockets()
	}
	return nil
}

// addRules grants the write rights under the plan's paths.
func addRules(fd int, p plan, rights uint64) error {
	roots, err := workspaceRules(p.Root)
	if err != nil {
		return err
	}
	for _, d := range append(roots, p.Dirs...) {
		if err := addPath(fd, d, rights); err != nil {
			return err
		}
	}
	for _, f := range p.Files {
		if err := addPath(fd, f, rights&fileRights); err != nil {
			return err
		}
	}
	return nil
}

// workspaceRules are the paths that make the workspace writable. Without a
// .git at its root, the root itself. With one, every entry of the root but
// .git, since Landlock can only grant: a rule on the root would reach into
// .git. Symlinks are left out (a write through one is judged at its
// target), and so are files with more than one link, which may be the
// same file as one outside.
func workspaceRules(root string) ([]string, error) {
	if _, err := os.Lstat(filepath.Join(root, ".git")); err != nil {
		return []string{root}, nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	var out []string
	for _, e := range entries {
		if e.Name() == ".git" || e.Type()&os.ModeSymlink != 0 {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*unix.Stat_t); ok && !fi.IsDir() && st.Nlink > 1 {
			continue
		}
		if fi.IsDir() || fi.Mode().IsRegular() {
			out = append(out, filepath.Join(root, e.Name()))
		}
	}
	return out, nil
}

// addPath adds a path-beneath rule; a file gets only the file rights.
func addPath(fd int, path string, rights uint64) error {
	pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return fmt.Errorf("landlock rule: %s: %w", path, err)
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return fmt.Errorf("landlock rule: %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return nil
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= fileRights
	}
	rule := unix.LandlockPathBeneathAttr{Allowed_access: rights, Parent_fd: int32(pfd)}
	_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(fd), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	if errno != 0 {
		return fmt.Errorf("landlock rule: %s: %w", path, errno)
	}
	return nil
}
