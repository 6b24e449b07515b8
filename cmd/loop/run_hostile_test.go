package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileRepo lays out a repository written to take an agent down: its
// Makefile and an instruction file are links to /dev/zero, package.json and
// CLAUDE.md are FIFOs, links lead out of it, one file is a single line of
// bigMB megabytes, and the README's first line is terminal escape
// sequences (a window title, a clear screen, a red fake verdict).
func hostileRepo(t *testing.T, bigMB int) string {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "repo")
	if err := os.MkdirAll(filepath.Join(ws, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink("/dev/zero", filepath.Join(ws, "Makefile")))
	must(os.Symlink("/dev/zero", filepath.Join(ws, "AGENTS.md")))
	must(syscall.Mkfifo(filepath.Join(ws, "package.json"), 0o644))
	must(syscall.Mkfifo(filepath.Join(ws, "CLAUDE.md"), 0o644))
	must(os.Symlink("/etc", filepath.Join(ws, "etc")))
	must(os.Symlink("/etc/passwd", filepath.Join(ws, "src", "passwd.go")))
	must(os.WriteFile(filepath.Join(ws, "go.mod"), []byte("module hostile\n\ngo 1.22\n"), 0o644))
	must(os.WriteFile(filepath.Join(ws, "README.md"), []byte("\x1b]0;pwned\x07\x1b[2J\x1b[H\x1b[31mall tests passed\x1b[0m\nhello\n"), 0o644))
	f, err := os.Create(filepath.Join(ws, "src", "big.go"))
	must(err)
	line := bytes.Repeat([]byte("a"), 1<<20)
	for range bigMB {
		_, err = f.Write(line)
		must(err)
	}
	must(f.Close())
	return ws
}

// TestHostileRepo runs `loop run --script` (as its own process, so that its
// peak memory is its own) on the hostile repository: the "model" reads the
// FIFOs, the links and the big file, edits the big file, lists and greps
// everything, and reads the README. The run must end with an outcome
// line, within a minute, with no escape byte in the terminal view, and
// without reading the big file into memory.
func TestHostileRepo(t *testing.T) {
	const bigMB = 400
	ws := hostileRepo(t, bigMB)
	calls := []string{
		toolCall("read_file", "package.json"),
		toolCall("read_file", "AGENTS.md"),
		toolCall("read_file", "etc/passwd"),
		toolCall("read_file", "src/passwd.go"),
		toolCall("read_file", "src/big.go"),
		`{"name": "edit_file", "arguments": {"path": "src/big.go", "old_string": "no such text", "new_string": "x"}}`,
		`{"name": "grep", "arguments": {"pattern": "zzz"}}`,
		`{"name": "list_files", "arguments": {"pattern": "**"}}`,
		toolCall("read_file", "README.md"),
	}
	var replies []string
	for _, c := range calls {
		replies = append(replies, "<tool_call>\n"+c+"\n</tool_call>")
	}
	replies = append(replies, "Nothing to fix.", "Nothing to fix.")
	script, _ := json.Marshal(replies)
	dir := t.TempDir()
	scriptFile, trans := filepath.Join(dir, "script.json"), filepath.Join(dir, "run.jsonl")
	os.WriteFile(scriptFile, script, 0o644)
	cmd := exec.Command(os.Args[0], "run", "--script", scriptFile, "-C", ws, "--max-steps", "12", "--transcript", trans, "look around")
	cmd.Env = append(os.Environ(), envAsLoop+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// The kernel's high-water mark of the process's own memory (VmHWM,
	// reset by exec), read until it exits: rusage's maxrss would count
	// the test binary's peak from before the fork.
	var peakKB int
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(time.Minute)
wait:
	for {
		select {
		case <-done:
			break wait
		case <-tick.C:
			peakKB = max(peakKB, highWaterKB(cmd.Process.Pid))
		case <-deadline:
			cmd.Process.Kill()
			<-done
			t.Fatalf("loop run on the hostile repository still ran after a minute\nstderr:\n%s", stderr.String())
		}
	}
	peakMB := peakKB / 1024
	t.Logf("exit code %d, peak resident memory %d MB, with a %d MB one-line file", cmd.ProcessState.ExitCode(), peakMB, bigMB)
	if peakMB > bigMB/2 {
		t.Errorf("peak resident memory %d MB: a tool read the %d MB file whole", peakMB, bigMB)
	}
	view := stdout.String() + stderr.String()
	if !strings.Contains(view, " requests, ") {
		t.Errorf("no outcome line:\n%s", view)
	}
	if i := strings.IndexAny(view, "\x1b\x07"); i >= 0 {
		t.Errorf("the terminal view printed a control character at byte %d: %q", i, view[max(i-40, 0):min(i+40, len(view))])
	}
	results := toolResults(t, trans)
	if len(results) != len(calls) {
		t.Fatalf("%d tool results, want %d:\n%s", len(results), len(calls), strings.Join(results, "\n---\n"))
	}
	for i, want := range []string{"FIFO", "outside", "outside", "outside", "", "", "", "", "all tests passed"} {
		if want != "" && !strings.Contains(results[i], want) {
			t.Errorf("call %d (%s): result %q, want it to say %q", i+1, calls[i], cut(results[i]), want)
		}
	}
	if !hasEscape(trans) {
		t.Error("the transcript lost the README's escape bytes; it must keep what the tools returned")
	}
}

// highWaterKB is a process's peak resident memory so far, in KiB; 0 when
// it cannot be read.
func highWaterKB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int
			fmt.Sscan(rest, &kb)
			return kb
		}
	}
	return 0
}

// hasEscape reports whether a transcript file holds an escape character,
// as JSON writes it.
func hasEscape(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`\u001b`)) {
			return true
		}
	}
	return false
}

func cut(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
