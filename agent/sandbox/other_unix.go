//go:build unix && !linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// newGroup makes the command the leader of a new process group.
func newGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the command's process group.
func killGroup(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// seatbelt is the sandbox-exec profile of c's rules on macOS: reads
// everywhere, writes in the workspace but its .git, the temp directories
// and spec's directories, and no network without AllowNet. It is not
// tested on macOS by this project's CI.
func seatbelt(c Command) (string, bool) {
	if runtime.GOOS != "darwin" || c.Spec.Off {
		return "", false
	}
	if _, err := os.Stat("/usr/bin/sandbox-exec"); err != nil {
		return "", false
	}
	q := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		return fmt.Sprintf("%q", p)
	}
	var b strings.Builder
	b.WriteString("(version 1)\n(allow default)\n(deny file-write*)\n(allow file-write*\n")
	for _, d := range append([]string{c.Dir, os.TempDir(), "/private/tmp", "/private/var/folders"}, c.Spec.Writable...) {
		fmt.Fprintf(&b, "  (subpath %s)\n", q(d))
	}
	b.WriteString("  (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/tty\"))\n")
	fmt.Fprintf(&b, "(deny file-write* (subpath %s))\n", q(filepath.Join(c.Dir, ".git")))
	if !c.Spec.AllowNet {
		b.WriteString("(deny network*)\n")
	}
	return b.String(), true
}
