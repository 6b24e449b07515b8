package sandbox

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	Main()
	os.Exit(m.Run())
}

// needLandlock skips a test of the kernel sandbox where the kernel has
// none; everywhere else (CI included) it runs.
func needLandlock(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the kernel sandbox is Landlock, Linux's")
	}
	if Available() == 0 {
		t.Skip("this kernel has no Landlock")
	}
}

// layout makes a workspace with a .git, a temp directory that TMPDIR
// names, and a directory outside both.
func layout(t *testing.T) (ws, tmp, outside string) {
	t.Helper()
	base := t.TempDir()
	ws, tmp, outside = filepath.Join(base, "ws"), filepath.Join(base, "tmp"), filepath.Join(base, "outside")
	for _, d := range []string{ws + "/.git/hooks", ws + "/src", tmp, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{ws + "/.git/config", ws + "/src/a.go", outside + "/secret"} {
		if err := os.WriteFile(f, []byte("before\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TMPDIR", tmp)
	t.Setenv("GOCACHE", filepath.Join(tmp, "gocache"))
	return ws, tmp, outside
}

// sh runs a bash script in the sandbox and returns its exit code and
// output.
func sh(t *testing.T, dir string, spec Spec, script string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	code, err := Run(Command{Args: []string{"bash", "-c", script}, Dir: dir, Stdout: &out, Stderr: &out, Spec: spec}, nil)
	if err != nil {
		t.Fatalf("Run(%q): %v", script, err)
	}
	return code, out.String()
}

func TestWrites(t *testing.T) {
	needLandlock(t)
	ws, tmp, outside := layout(t)
	tests := []struct {
		name, script string
		ok           bool
	}{
		{"edit a workspace file", "echo x >> src/a.go", true},
		{"new file in a directory", "echo x > src/b.go && mkdir -p src/c/d && touch src/c/d/e", true},
		{"remove a workspace file", "touch src/gone && rm src/gone", true},
		{"temp directory", "echo x > " + tmp + "/t && mktemp", true},
		{"dev null", "echo x > /dev/null && echo y 2>/dev/null >&2", true},
		{"git config", "echo '[core] fsmonitor = touch /tmp/p' >> .git/config", false},
		{"git hook", "echo 'touch /tmp/p' > .git/hooks/pre-commit", false},
		{"remove .git", "rm -rf .git", false},
		{"rename .git", "mv .git git2", false},
		{"outside file", "echo x >> " + outside + "/secret", false},
		{"outside new file", "touch " + outside + "/new", false},
		{"truncate outside", ": > " + outside + "/secret", false},
		{"hard link from outside", "ln " + outside + "/secret src/link && echo x >> src/link", false},
		{"symlink out, then write", "ln -s " + outside + "/secret src/sym && echo x >> src/sym", false},
		{"rename outside file in", "mv " + outside + "/secret src/stolen", false},
		{"home directory", "touch ~/loop-sandbox-test-" + fmt.Sprint(os.Getpid()), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out := sh(t, ws, Spec{}, tt.script)
			if (code == 0) != tt.ok {
				t.Errorf("%q: exit code %d (%s), want success %v", tt.script, code, strings.TrimSpace(out), tt.ok)
			}
		})
	}
	for _, f := range []string{ws + "/.git/config", outside + "/secret"} {
		if b, err := os.ReadFile(f); err != nil || string(b) != "before\n" {
			t.Errorf("%s = %q, %v; want it unchanged", f, b, err)
		}
	}
	for _, f := range []string{ws + "/.git/hooks/pre-commit", outside + "/new"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s exists; the sandbox let a command create it", f)
		}
	}
}

func TestWritesWithoutGit(t *testing.T) {
	needLandlock(t)
	ws, _, outside := layout(t)
	if err := os.RemoveAll(ws + "/.git"); err != nil {
		t.Fatal(err)
	}
	if code, out := sh(t, ws, Spec{}, "mkdir target && echo x > target/y && echo x > top"); code != 0 {
		t.Errorf("new top-level entries in a workspace without .git: exit %d: %s", code, out)
	}
	if code, _ := sh(t, ws, Spec{}, "echo x >> "+outside+"/secret"); code == 0 {
		t.Error("wrote outside the workspace")
	}
}

func TestWritableSpec(t *testing.T) {
	needLandlock(t)
	ws, _, outside := layout(t)
	if code, out := sh(t, ws, Spec{Writable: []string{outside}}, "echo x >> "+outside+"/secret"); code != 0 {
		t.Errorf("Spec.Writable: exit %d: %s", code, out)
	}
	if _, err := Start(Command{Args: []string{"true"}, Dir: ws, Spec: Spec{Writable: []string{outside + "/missing"}}}); err == nil {
		t.Error("Start with a missing writable directory: no error")
	}
	if code, out := sh(t, ws, Spec{Off: true}, "echo x >> "+outside+"/secret"); code != 0 {
		t.Errorf("Spec.Off: exit %d: %s", code, out)
	}
}

func TestNetwork(t *testing.T) {
	needLandlock(t)
	ws, _, _ := layout(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	tcp := fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d", port)
	udp := "exec 3<>/dev/udp/127.0.0.1/9"
	if code, _ := sh(t, ws, Spec{}, tcp); code == 0 {
		t.Error("TCP connect ran in the sandbox")
	}
	if code, _ := sh(t, ws, Spec{}, udp); code == 0 {
		t.Error("a UDP socket opened in the sandbox")
	}
	if code, out := sh(t, ws, Spec{AllowNet: true}, tcp); code != 0 {
		t.Errorf("TCP connect with AllowNet: exit %d: %s", code, out)
	}
	if code, out := sh(t, ws, Spec{}, "exec 3<>/dev/null; echo ok | cat"); code != 0 || !strings.Contains(out, "ok") {
		t.Errorf("pipes and files without the network: exit %d: %s", code, out)
	}
}

func TestSignalsStayInside(t *testing.T) {
	needLandlock(t)
	if Available() < 6 {
		t.Skip("signal scoping needs Landlock ABI 6")
	}
	ws, _, _ := layout(t)
	if code, _ := sh(t, ws, Spec{}, fmt.Sprintf("kill -0 %d", os.Getpid())); code == 0 {
		t.Error("a sandboxed command could signal the program that started it")
	}
}

func TestExitCode(t *testing.T) {
	ws, _, _ := layout(t)
	for _, spec := range []Spec{{}, {Off: true}} {
		if code, _ := sh(t, ws, spec, "exit 3"); code != 3 {
			t.Errorf("exit 3 (Spec %+v): code %d", spec, code)
		}
		if code, _ := sh(t, ws, spec, "kill -9 $$"); code != 137 {
			t.Errorf("killed by SIGKILL (Spec %+v): code %d, want 137", spec, code)
		}
	}
}

// marker is a unique argument that finds a test's sleepers in /proc.
func marker(t *testing.T) string {
	return fmt.Sprintf("%d%06d", 31000+os.Getpid()%1000, time.Now().Nanosecond()/1000)
}

// survivors lists the processes whose command line holds mark, waiting up
// to a few seconds for them to go.
func survivors(mark string) []string {
	var left []string
	for range 100 {
		left = left[:0]
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err == nil && bytes.Contains(b, []byte(mark)) {
				left = append(left, e.Name()+": "+strings.ReplaceAll(string(bytes.TrimRight(b, "\x00")), "\x00", " "))
			}
		}
		if len(left) == 0 {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return left
}

// background starts sleepers that leave the shell's job control: a plain
// background job, one in a new session, and a double fork.
func background(mark string) string {
	return fmt.Sprintf("sleep %[1]s1 & setsid sleep %[1]s2 & (sleep %[1]s3 &) ; echo started", mark)
}

func TestBackgroundEndsWithCommand(t *testing.T) {
	ws, _, _ := layout(t)
	for _, spec := range []Spec{{}, {Off: true}} {
		mark := marker(t)
		code, out := sh(t, ws, spec, background(mark))
		if code != 0 || !strings.Contains(out, "started") {
			t.Fatalf("exit %d: %s", code, out)
		}
		if left := survivors(mark); len(left) > 0 {
			t.Errorf("Spec %+v: processes outlived their command: %v", spec, left)
		}
	}
}

func TestStop(t *testing.T) {
	ws, _, _ := layout(t)
	mark := marker(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := Start(Command{Args: []string{"bash", "-c", background(mark) + "; sleep " + mark + "4"}, Dir: ws, Stdout: w})
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, _ := r.Read(buf); !strings.Contains(string(buf[:n]), "started") {
		t.Fatalf("read %q, want started", buf[:n])
	}
	p.Stop()
	if code, err := p.Wait(); code != -1 || err != nil {
		t.Errorf("Wait after Stop = %d, %v; want -1, nil", code, err)
	}
	if left := survivors(mark); len(left) > 0 {
		t.Errorf("processes outlived Stop: %v", left)
	}
}
