package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/sandbox"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/sampler"
)

// writeScript writes model replies as a --script file in dir.
func writeScript(t *testing.T, dir string, replies ...string) string {
	t.Helper()
	b, err := json.Marshal(replies)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "script.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// callReply is a reply that calls a tool, in the hermes format.
func callReply(name string, args map[string]string) string {
	b, _ := json.Marshal(map[string]any{"name": name, "arguments": args})
	return "<tool_call>\n" + string(b) + "\n</tool_call>"
}

// readEvents reads a transcript file.
func readEvents(t *testing.T, path string) []transcript.Event {
	t.Helper()
	events, err := readTranscript(path)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// tasksOf lists the tasks of a transcript's events.
func tasksOf(events []transcript.Event) []string {
	var tasks []string
	for _, e := range events {
		if e.Kind == transcript.KindTask {
			tasks = append(tasks, e.Task)
		}
	}
	return tasks
}

// TestRunUsageErrors: a command line `loop run` cannot mean is a usage
// error (exit 2) found before anything runs: no transcript is written,
// standard input is not read.
func TestRunUsageErrors(t *testing.T) {
	ws := t.TempDir()
	script := writeScript(t, t.TempDir(), "Done.")
	file := filepath.Join(ws, "notes.txt")
	os.WriteFile(file, []byte("a file\n"), 0o644)
	existing := filepath.Join(t.TempDir(), "old.jsonl")
	os.WriteFile(existing, []byte("{}\n"), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"empty task", []string{""}, "the task is empty"},
		{"all-space task", []string{" \t ", " "}, "the task is empty"},
		{"empty -C", []string{"-C", "", "look"}, `-C "": name the workspace directory`},
		{"negative --max-steps", []string{"--max-steps", "-1", "look"}, "--max-steps -1"},
		{"negative --max-tokens", []string{"--max-tokens", "-5", "look"}, "--max-tokens -5"},
		{"negative --timeout", []string{"--timeout", "-5s", "look"}, "--timeout -5s"},
		{"--sandbox neither on nor off", []string{"--sandbox", "maybe", "look"}, `--sandbox "maybe": want on or off`},
		{"--sandbox-write missing", []string{"--sandbox-write", ws, "--sandbox-write", ws + "/nope", "look"}, `--sandbox-write "` + ws + `/nope": no such file or directory`},
		{"--sandbox-write a file", []string{"--sandbox-write", file, "look"}, `--sandbox-write "` + file + `": not a directory`},
		{"--transcript exists", []string{"--transcript", existing, "look"}, "--transcript " + existing + ": the file exists"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trans := filepath.Join(t.TempDir(), "run.jsonl")
			args := append([]string{"run", "--script", script, "-C", ws, "--transcript", trans}, tt.args...)
			code, out, errOut := runLoop(t, args...)
			if code != 2 || !strings.Contains(errOut, tt.want) {
				t.Errorf("loop %q = exit %d, %q; want 2 and %q\nstdout: %s", args, code, errOut, tt.want, out)
			}
			if _, err := os.Stat(trans); err == nil {
				t.Errorf("loop %q wrote a transcript", args)
			}
		})
	}
	if b, _ := os.ReadFile(existing); string(b) != "{}\n" {
		t.Errorf("the existing transcript changed: %q", b)
	}
}

// TestRunSandboxFlags checks what the sandbox's flags and --check put in
// the workspace's configuration.
func TestRunSandboxFlags(t *testing.T) {
	ws, extra := t.TempDir(), t.TempDir()
	t.Chdir(filepath.Dir(extra))
	tests := []struct {
		name      string
		args      []string
		want      sandbox.Spec
		wantCheck string
	}{
		{"default", nil, sandbox.Spec{}, ""},
		{"off", []string{"--sandbox", "off"}, sandbox.Spec{Off: true}, ""},
		{"on", []string{"--sandbox=on"}, sandbox.Spec{}, ""},
		{"network", []string{"--allow-net"}, sandbox.Spec{AllowNet: true}, ""},
		{"writable, relative made absolute", []string{"--sandbox-write", filepath.Base(extra), "--sandbox-write", ws},
			sandbox.Spec{Writable: []string{extra, ws}}, ""},
		{"check", []string{"--check", "make test"}, sandbox.Spec{}, "make test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f runFlags
			fs := newFlagSet("run", io.Discard)
			f.registerAll(fs)
			if err := parse(fs, append([]string{"-C", ws}, tt.args...)); err != nil {
				t.Fatal(err)
			}
			if err := f.validate(); err != nil {
				t.Fatal(err)
			}
			o, err := f.sampling.overrides()
			if err != nil {
				t.Fatal(err)
			}
			s, err := f.settings(o, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, s.Limits.Sandbox, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("%q: Sandbox differs (-want +got):\n%s", tt.args, diff)
			}
			if got := s.Limits.Policy.Check; got != tt.wantCheck {
				t.Errorf("%q: Policy.Check = %q, want %q", tt.args, got, tt.wantCheck)
			}
		})
	}
}

// TestRunUnreadableWorkspace: a workspace loop cannot list is an error at
// start that names it, not a run that ends done. Root reads every
// directory, so as root loop runs as the user nobody.
func TestRunUnreadableWorkspace(t *testing.T) {
	base := sharedTempDir(t)
	script := writeScript(t, base, "Done.")
	tests := []struct {
		name string
		mode os.FileMode // for the owner and the others alike
	}{
		{"no permission", 0o000},
		{"no read permission", 0o303},
		{"no search permission", 0o606},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := filepath.Join(base, fmt.Sprintf("ws%d", i))
			os.Mkdir(ws, 0o755)
			os.WriteFile(filepath.Join(ws, "README.md"), []byte("# hi\n"), 0o644)
			os.Chmod(ws, tt.mode)
			t.Cleanup(func() { os.Chmod(ws, 0o755) })
			trans := filepath.Join(base, fmt.Sprintf("run%d.jsonl", i))
			code, out := runLoopUnprivileged(t, base, "run", "--script", script, "-C", ws, "--transcript", trans, "look around")
			want := "loop run: workspace " + ws + ": cannot read it: permission denied"
			if code != 1 || !strings.Contains(out, want) {
				t.Errorf("loop run -C (mode %v) = exit %d, %q; want 1 and %q", tt.mode, code, out, want)
			}
		})
	}
}

// sharedTempDir is a temporary directory that the user nobody may use too
// when the tests run as root.
func sharedTempDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "loop-nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o1777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runLoopUnprivileged runs loop in process, or, as root, a copy of this
// test binary in dir as loop, as the user nobody. It returns the exit code
// and stdout and stderr together.
func runLoopUnprivileged(t *testing.T, dir string, args ...string) (int, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		code, out, errOut := runLoop(t, args...)
		return code, out + errOut
	}
	bin := filepath.Join(dir, "loop.test")
	if _, err := os.Stat(bin); err != nil {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(exe)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	const nobody = 65534
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), envAsLoop+"=1", "TMPDIR="+dir, "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil && cmd.ProcessState == nil {
		t.Fatalf("run as nobody: %v", err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// TestRunTranscriptsNeverShared starts runs at the same moment without
// --transcript: each writes a new file of its own, which holds its one
// task, and names it on stderr.
func TestRunTranscriptsNeverShared(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache) // os.UserCacheDir on Linux and BSD
	t.Setenv("HOME", cache)           // on macOS
	ws := t.TempDir()
	script := writeScript(t, t.TempDir(), "Done.")
	const runs = 8
	stderrs := make([]string, runs)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			var stdout, stderr bytes.Buffer
			<-start
			code := run(context.Background(), []string{"run", "--script", script, "-C", ws, fmt.Sprintf("task %d", i)}, &stdout, &stderr)
			stderrs[i] = fmt.Sprintf("exit %d\n%s", code, stderr.String())
		})
	}
	close(start)
	wg.Wait()
	dir := filepath.Join(cache, "loop", "transcripts")
	name := regexp.MustCompile(`^\d{8}-\d{6}\.\d{3}-[0-9a-f]{8}\.jsonl$`)
	for i, errOut := range stderrs {
		at := strings.LastIndex(errOut, "transcript: ")
		path := strings.TrimSpace(errOut[at+len("transcript: "):])
		if at < 0 || filepath.Dir(path) != dir || !name.MatchString(filepath.Base(path)) {
			t.Errorf("run %d: stderr names no new transcript in %s:\n%s", i, dir, errOut)
			continue
		}
		if diff := cmp.Diff([]string{fmt.Sprintf("task %d", i)}, tasksOf(readEvents(t, path))); diff != "" {
			t.Errorf("run %d: transcript %s tasks differ (-want +got):\n%s", i, path, diff)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != runs {
		t.Errorf("%d runs wrote %d transcripts, want %d", runs, len(entries), runs)
	}
}

// TestTranscriptName: names made in the same instant differ, and sort by
// time.
func TestTranscriptName(t *testing.T) {
	now := time.Date(2026, 3, 4, 5, 6, 7, 891_000_000, time.FixedZone("CET", 3600))
	seen := map[string]bool{}
	for range 1000 {
		n := transcriptName(now)
		if !strings.HasPrefix(n, "20260304-040607.891-") || seen[n] {
			t.Fatalf("transcriptName = %q (seen before: %v), want 20260304-040607.891-<random>.jsonl, new", n, seen[n])
		}
		seen[n] = true
	}
	if a, b := transcriptName(now), transcriptName(now.Add(time.Millisecond)); a >= b {
		t.Errorf("transcriptName: %q sorts after the next millisecond's %q", a, b)
	}
}

// TestInteractive feeds standard input to interactive mode: a line of any
// length up to 1 MiB is one task, read whole; a longer line or a read
// error ends the run with an error, never silently.
func TestInteractive(t *testing.T) {
	long := strings.Repeat("fix the bug described here. ", 100<<10/28+1) // over 64 KB
	tests := []struct {
		name      string
		in        io.Reader
		wantTasks []string
		wantErr   string
	}{
		{"two tasks", strings.NewReader("look\nfix it\n"), []string{"look", "fix it"}, ""},
		{"blank lines skipped, last line without newline", strings.NewReader("\n  \n\r\nfix it"), []string{"fix it"}, ""},
		{"a line over 64 KB read whole", strings.NewReader(long + "\nnext\n"), []string{strings.TrimSpace(long), "next"}, ""},
		{"a line over 1 MiB refused", strings.NewReader("first\n" + strings.Repeat("x", maxTaskLine+1) + "\nnext\n"), []string{"first"}, "a task line longer than 1048576 bytes"},
		{"read error", io.MultiReader(strings.NewReader("first\n"), iotest.ErrReader(errors.New("disk on fire"))), []string{"first"}, "standard input: disk on fire"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, trans := scriptAgent(t, "Done.", "Done.", "Done.")
			err := interactive(context.Background(), a, tt.in, io.Discard)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("interactive = %v, want error %q", err, tt.wantErr)
			}
			got := tasksOf(readEvents(t, trans))
			if !slices.Equal(got, tt.wantTasks) {
				t.Errorf("tasks run: %d of %v bytes, want %d of %v bytes", len(got), lengths(got), len(tt.wantTasks), lengths(tt.wantTasks))
			}
		})
	}
}

// TestReadLine: a line up to the limit comes back whole whatever the
// reader's buffer, without its newline; a longer one is an error.
func TestReadLine(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []string // the lines, then io.EOF
		wantErr string
	}{
		{"lines", "ab\ncd\n", []string{"ab", "cd"}, ""},
		{"last line without newline", "ab\ncd", []string{"ab", "cd"}, ""},
		{"empty input", "", nil, ""},
		{"empty lines", "\n\n", []string{"", ""}, ""},
		{"lines longer than the buffer", strings.Repeat("a", 40) + "\n" + strings.Repeat("b", 50), []string{strings.Repeat("a", 40), strings.Repeat("b", 50)}, ""},
		{"a line at the limit", strings.Repeat("a", 50) + "\n", []string{strings.Repeat("a", 50)}, ""},
		{"a line over the limit", "ok\n" + strings.Repeat("a", 51) + "\n", []string{"ok"}, "a task line longer than 50 bytes"},
		{"a last line over the limit", strings.Repeat("a", 51), nil, "a task line longer than 50 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(strings.NewReader(tt.in), 16)
			var got []string
			var err error
			for {
				var line string
				if line, err = readLine(r, 50); err != nil {
					break
				}
				got = append(got, line)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("readLine(%q) lines differ (-want +got):\n%s", tt.in, diff)
			}
			if tt.wantErr == "" && err != io.EOF || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("readLine(%q) ends with %v, want %q (or io.EOF)", tt.in, err, tt.wantErr)
			}
		})
	}
}

func lengths(ss []string) []int {
	var n []int
	for _, s := range ss {
		n = append(n, len(s))
	}
	return n
}

// TestInteractiveCancelledAtPrompt: a cancelled context ends the wait for
// a line (Ctrl-C or SIGTERM at the prompt).
func TestInteractiveCancelledAtPrompt(t *testing.T) {
	a, _ := scriptAgent(t, "Done.")
	r, w := io.Pipe() // a terminal where nobody types
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- interactive(ctx, a, r, io.Discard) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("interactive after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("interactive still waits for a line after its context was cancelled")
	}
}

// scriptAgent builds the agent of `loop run --script` on replies in a new
// workspace, as runRun does, and returns it with its transcript's path.
func scriptAgent(t *testing.T, replies ...string) (*loop.Agent, string) {
	t.Helper()
	dir := t.TempDir()
	ws, trans := filepath.Join(dir, "ws"), filepath.Join(dir, "run.jsonl")
	os.Mkdir(ws, 0o755)
	var f runFlags
	fs := newFlagSet("run", io.Discard)
	f.registerAll(fs)
	if err := parse(fs, []string{"--script", writeScript(t, dir, replies...), "-C", ws, "--transcript", trans}); err != nil {
		t.Fatal(err)
	}
	if err := f.validate(); err != nil {
		t.Fatal(err)
	}
	m, closeModel, err := f.modelFor(context.Background(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	a, sinks, err := f.agent(m, sampler.Overrides{}, io.Discard, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sinks.close(io.Discard); closeModel() })
	return a, trans
}
