package variants

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// Exec replaces the process with variant v of the file at path, run from
// memory with args (args[0] included) and the environment plus EnvExe.
// Where memory cannot be executed (vm.memfd_noexec), it runs the build from
// the user's cache directory, extracted there once under its hash, and says
// so on the first start. It returns only on failure.
func Exec(path string, v *Variant, args []string) error {
	env := append(os.Environ(), EnvExe+"="+path)
	fd, err := unix.MemfdCreate("loop-"+v.Name, 0)
	if err != nil {
		return execCached(path, v, args, env, err)
	}
	mem := os.NewFile(uintptr(fd), "memfd:loop-"+v.Name)
	if err := Extract(mem, path, v); err != nil {
		mem.Close()
		return err
	}
	err = syscall.Exec(fmt.Sprintf("/proc/self/fd/%d", fd), args, env)
	mem.Close()
	return execCached(path, v, args, env, err)
}

// execCached runs v from the cache directory, after memExec failed.
func execCached(path string, v *Variant, args, env []string, memErr error) error {
	dir, err := os.UserCacheDir()
	if err != nil {
		return fmt.Errorf("run build %s: from memory: %v; no cache directory: %w", v.Name, memErr, err)
	}
	dir = filepath.Join(dir, "loop", "builds")
	exe := filepath.Join(dir, "loop-"+v.Name+"-"+v.Sum[:min(16, len(v.Sum))])
	if _, err := os.Stat(exe); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "loop: cannot run build %s from memory (%v); extracting it once to %s\n", v.Name, memErr, exe)
		if err := extractFile(exe, path, v); err != nil {
			return err
		}
	}
	return syscall.Exec(exe, args, env)
}

// extractFile writes v to exe, executable, through a temporary file.
func extractFile(exe, path string, v *Variant) error {
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		return err
	}
	return writeExecutable(exe, func(w *os.File) error { return Extract(w, path, v) })
}
