//go:build linux || darwin

package tools

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nobody is the user a test runs as when it needs permission checks that
// root would pass.
const nobody = 65534

// unprivileged reports whether the calling test may go on in this
// process: true unless the tests run as root. As root it runs the test
// again in a copy of this test binary as the user nobody, reports that
// run's failure as its own, and returns false. The copy lies in a
// directory nobody may enter, which also serves as the child's TMPDIR.
func unprivileged(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return true
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("cannot rerun as nobody: %v", err)
	}
	dir, err := os.MkdirTemp("", "nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o1777); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "tools.test")
	if err := copyFile(exe, bin); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil && cmd.ProcessState == nil:
		t.Skipf("cannot rerun as nobody: %v", err)
	case err != nil:
		t.Errorf("as nobody: %v\n%s", err, out)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()):
		t.Errorf("as nobody, the test did not pass:\n%s", out)
	}
	return false
}

// copyFile copies the executable src to dst, mode 0755.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
