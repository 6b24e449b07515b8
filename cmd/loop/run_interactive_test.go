package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/loopagent/loop/agent/transcript"
)

// screen is what a terminal shows: everything written to it, echoes of
// what was typed included.
type screen struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *screen) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// await waits until the screen shows want after position from, and
// returns the position after it.
func (s *screen) await(t *testing.T, from int, want string) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		text := s.String()
		if i := strings.Index(text[from:], want); i >= 0 {
			return from + i + len(want)
		}
		if time.Now().After(deadline) {
			t.Fatalf("the screen never showed %q; after what was awaited before, it shows:\n%s", want, text[from:])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// terminalRun starts this test binary as `loop run ARGS` on a new
// pseudo-terminal: standard input, output and error are the terminal,
// as for a person at one.
func terminalRun(t *testing.T, args ...string) (*exec.Cmd, *os.File, *screen) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"run"}, args...)...)
	cmd.Env = append(os.Environ(), envAsLoop+"=1", "NO_COLOR=1")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	s := &screen{}
	go io.Copy(s, tty) // ends with EIO once the process has gone
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		tty.Close()
	})
	return cmd, tty, s
}

// exitCode waits up to 30 seconds for cmd and returns its exit status.
func exitCode(t *testing.T, cmd *exec.Cmd, s *screen) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode()
	case <-time.After(30 * time.Second):
		t.Fatalf("loop run did not exit; the screen shows:\n%s", s.String())
	}
	return -1
}

// TestConversationUndo drives `loop run` without a task on a terminal,
// with the scripted model: a typed task edits a file twice and creates
// another, the outcome line shows, /undo brings the file back byte for
// byte and removes the new one, an unknown command gets the help line,
// /compact and /clear answer, and /exit ends the session with status 0.
// The transcript records the undo and the cleared conversation.
func TestConversationUndo(t *testing.T) {
	ws, tmp := t.TempDir(), t.TempDir()
	orig := []byte("first line\r\nnaïve\tsecond line\nno newline at the end")
	notes := filepath.Join(ws, "notes.txt")
	if err := os.WriteFile(notes, orig, 0o640); err != nil {
		t.Fatal(err)
	}
	script := writeScript(t, tmp,
		callReply("edit_file", map[string]string{"path": "notes.txt", "old_string": "first", "new_string": "1st"}),
		callReply("edit_file", map[string]string{"path": "notes.txt", "old_string": "1st line", "new_string": "one line"}),
		callReply("write_file", map[string]string{"path": "new/created.txt", "content": "created\n"}),
		"I changed notes.txt and wrote new/created.txt.")
	trans := filepath.Join(tmp, "run.jsonl")
	cmd, tty, s := terminalRun(t, "--script", script, "-C", ws, "--no-gate", "--transcript", trans)

	at := s.await(t, 0, "> ")
	if !strings.Contains(s.String(), conversationHelp) {
		t.Errorf("the screen does not show the commands before the first prompt:\n%s", s.String())
	}
	io.WriteString(tty, "change the notes\r")
	at = s.await(t, at, "unverified (no passing check after the last edit): 4 requests, 3 calls")
	at = s.await(t, at, "> ")
	if got, _ := os.ReadFile(notes); !bytes.HasPrefix(got, []byte("one line\r\n")) {
		t.Fatalf("after the task notes.txt holds %q, want it edited", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "new", "created.txt")); err != nil {
		t.Fatalf("after the task: %v, want new/created.txt written", err)
	}

	io.WriteString(tty, "/undo\r")
	at = s.await(t, at, "undo: restored notes.txt; removed new/created.txt")
	at = s.await(t, at, "> ")
	if got, _ := os.ReadFile(notes); !bytes.Equal(got, orig) {
		t.Errorf("after /undo notes.txt holds %q, want %q", got, orig)
	}
	if info, err := os.Stat(notes); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("after /undo notes.txt: %v, %v; want mode 0640", info, err)
	}
	if _, err := os.Lstat(filepath.Join(ws, "new")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after /undo the directory new: %v, want it gone", err)
	}

	io.WriteString(tty, "/frobnicate\r")
	at = s.await(t, at, "unknown command /frobnicate: type a task, or /undo")
	at = s.await(t, at, "> ")
	io.WriteString(tty, "/compact\r") // one short task: nothing worth a summary yet
	at = s.await(t, at, "compact: nothing to free (")
	at = s.await(t, at, "> ")
	io.WriteString(tty, "/clear\r")
	at = s.await(t, at, "clear: a new conversation")
	at = s.await(t, at, "> ")
	io.WriteString(tty, "/exit\r")
	if code := exitCode(t, cmd, s); code != 0 {
		t.Errorf("after /exit loop run exited %d, want 0; the screen shows:\n%s", code, s.String())
	}

	events := readEvents(t, trans)
	var said []string
	for _, e := range events {
		if e.Kind == transcript.KindSession {
			said = append(said, e.Detail)
		}
	}
	if want := []string{"new session", "undo: restored notes.txt; removed new/created.txt", "cleared: a new conversation starts here"}; !slices.Equal(said, want) {
		t.Errorf("the transcript's session events say %q, want %q", said, want)
	}
	if msgs, err := transcript.Conversation(events); err != nil || len(msgs) != 0 {
		t.Errorf("the conversation a continued session would start from: %d messages (%v), want none after /clear", len(msgs), err)
	}
}

// TestConversationCtrlC: Ctrl-C while a task runs a command stops that
// task, not the session: the prompt comes back and the next task runs in
// the same conversation. Ctrl-C at the prompt ends it, exit status 130.
func TestConversationCtrlC(t *testing.T) {
	ws, tmp := t.TempDir(), t.TempDir()
	script := writeScript(t, tmp,
		callReply("shell", map[string]string{"command": "sleep 60"}),
		"Nothing is left to do.")
	cmd, tty, s := terminalRun(t, "--script", script, "-C", ws, "--yes", "--transcript", filepath.Join(tmp, "run.jsonl"))

	at := s.await(t, 0, "> ")
	io.WriteString(tty, "wait a minute\r")
	at = s.await(t, at, "→ shell")
	time.Sleep(300 * time.Millisecond) // the command starts
	io.WriteString(tty, "\x03")
	at = s.await(t, at, "cancelled")
	at = s.await(t, at, "stopped; the conversation goes on")
	at = s.await(t, at, "> ")

	io.WriteString(tty, "What is left?\r")
	at = s.await(t, at, "done: 1 requests, 0 calls")
	at = s.await(t, at, "> ")
	events := readEvents(t, filepath.Join(tmp, "run.jsonl"))
	if tasks := tasksOf(events); len(tasks) != 2 || tasks[1] != "What is left?" {
		t.Errorf("the transcript's tasks are %q, want both in one run", tasks)
	}

	io.WriteString(tty, "\x03")
	if code := exitCode(t, cmd, s); code != 130 {
		t.Errorf("after Ctrl-C at the prompt loop run exited %d, want 130; the screen shows:\n%s", code, s.String()[at:])
	}
}

// TestInterrupts: what each signal ends, as the conversation sees it.
func TestInterrupts(t *testing.T) {
	tests := []struct {
		name         string
		inTask       bool
		signals      []os.Signal
		wantTaskEnds bool
		wantEnd      bool
	}{
		{"Ctrl-C in a task stops the task", true, []os.Signal{os.Interrupt}, true, false},
		{"a second Ctrl-C in the task ends the conversation", true, []os.Signal{os.Interrupt, os.Interrupt}, true, true},
		{"Ctrl-C at the prompt ends it", false, []os.Signal{os.Interrupt}, false, true},
		{"SIGTERM in a task ends it", true, []os.Signal{syscall.SIGTERM}, true, true},
		{"SIGHUP at the prompt ends it", false, []os.Signal{syscall.SIGHUP}, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, end := context.WithCancel(context.Background())
			defer end()
			in := &interrupts{ctx: ctx, end: end, signals: make(chan os.Signal, 1)}
			task := context.Background()
			if tt.inTask {
				var done func()
				task, done = in.task()
				defer done()
			}
			for _, sig := range tt.signals {
				in.handle(sig)
			}
			if got := task.Err() != nil; got != tt.wantTaskEnds {
				t.Errorf("the task's context ended: %v, want %v", got, tt.wantTaskEnds)
			}
			if got := in.ctx.Err() != nil; got != tt.wantEnd {
				t.Errorf("the conversation's context ended: %v, want %v", got, tt.wantEnd)
			}
			if !tt.wantEnd {
				next, done := in.task()
				defer done()
				if next.Err() != nil {
					t.Errorf("the next task's context is done before it starts")
				}
			}
		})
	}
}

// TestLineReaderKeepsAbandonedLine: a line whose reader gave up (a
// question cancelled by Ctrl-C) goes to the next asker, whole.
func TestLineReaderKeepsAbandonedLine(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	l := &lineReader{r: bufio.NewReader(r)}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("next with a cancelled context = %v, want context.Canceled", err)
	}
	go io.WriteString(w, "fix the bug\nnext task\n")
	for _, want := range []string{"fix the bug", "next task"} {
		if got, err := l.next(context.Background()); got != want || err != nil {
			t.Errorf("next = %q, %v; want %q", got, err, want)
		}
	}
}
