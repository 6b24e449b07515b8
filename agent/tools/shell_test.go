package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"time"

	"github.com/loopagent/loop/agent/sandbox"

	"github.com/google/go-cmp/cmp"
)

var yes = Config{Policy: Policy{Yes: true}}

// TestShell checks each result whole: what the model reads, and the
// effects the loop reads (Command, Ran, ExitCode) without decoding the
// arguments.
func TestShell(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		args string
		want Result
	}{
		{name: "output and exit code", cfg: yes, args: `{"command": "echo out; echo err >&2; exit 3"}`,
			want: Result{Content: "exit code 3\nout\nerr", ExitCode: 3, Command: "echo out; echo err >&2; exit 3", Ran: true}},
		{name: "no output", cfg: yes, args: `{"command": "true"}`, want: Result{Content: "exit code 0\n(no output)", Command: "true", Ran: true}},
		{name: "runs in the root", cfg: yes, args: `{"command": "cat marker.txt"}`, want: Result{Content: "exit code 0\nhere", Command: "cat marker.txt", Ran: true}},
		{name: "stdin is empty", cfg: yes, args: `{"command": "cat"}`, want: Result{Content: "exit code 0\n(no output)", Command: "cat", Ran: true}},
		{name: "cut by lines", cfg: Config{HeadLines: 2, TailLines: 2, Policy: Policy{Yes: true}}, args: `{"command": "seq 1 100"}`,
			want: Result{Content: "exit code 0\n1\n2\n[96 lines cut]\n99\n100", Command: "seq 1 100", Ran: true}},
		{name: "allowed by default", args: `{"command": "ls"}`, want: Result{Content: "exit code 0\nmarker.txt", Command: "ls", Ran: true}},
		{name: "timeout within the range", cfg: yes, args: `{"command": "true", "timeout": 600}`,
			want: Result{Content: "exit code 0\n(no output)", Command: "true", Ran: true}},
		{name: "denied", cfg: yes, args: `{"command": "sudo ls"}`, want: Result{IsError: true, ExitCode: -1, Command: "sudo ls",
			Content: `shell: refused: "sudo ls" matches the deny list (sudo) and never runs; do not try it again`}},
		{name: "no one to ask", cfg: Config{Policy: Policy{Allow: []string{"go test", "go vet"}}, Sandbox: sandbox.Spec{Off: true}}, args: `{"command": "make"}`, want: Result{IsError: true, ExitCode: -1, Command: "make",
			Content: `shell: refused: "make" needs the user's approval, which this run cannot ask for. What runs without approval: plain read-only commands (ls, cat, grep, git status/diff/log, ...; no $, backticks, redirection or assignments)`}},
		{name: "user said no", cfg: Config{Policy: Policy{Ask: func(context.Context, string) (bool, error) { return false, nil }}}, args: `{"command": "make"}`,
			want: Result{IsError: true, ExitCode: -1, Command: "make", Content: `shell: refused: the user did not allow "make"; choose another way or ask the user`}},
		{name: "user said yes", cfg: Config{Policy: Policy{Ask: func(context.Context, string) (bool, error) { return true, nil }}}, args: `{"command": "printf asked"}`,
			want: Result{Content: "exit code 0\nasked", Command: "printf asked", Ran: true}},
		{name: "empty command", cfg: yes, args: `{"command": "  "}`, want: Result{IsError: true, ExitCode: -1, Content: "shell: command is empty"}},
		{name: "negative timeout", cfg: yes, args: `{"command": "true", "timeout": -1}`,
			want: Result{IsError: true, ExitCode: -1, Content: `shell: argument "timeout" must be an integer from 1 to 600, not -1; leave it out for the default`}},
		// A model wrote this; it once overflowed into a negative duration,
		// "timed out after -1705674h7m42.047789056s", and killed the
		// command at once.
		{name: "timeout past the range", cfg: yes, args: `{"command": "true", "timeout": 2183000000000000}`,
			want: Result{IsError: true, ExitCode: -1, Content: `shell: argument "timeout" must be an integer from 1 to 600, not 2183000000000000; leave it out for the default`}},
		{name: "timeout past an int", cfg: yes, args: `{"command": "true", "timeout": 99999999999999999999}`,
			want: Result{IsError: true, ExitCode: -1, Content: `shell: argument "timeout" must be an integer from 1 to 600, not 99999999999999999999; leave it out for the default`}},
		{name: "timeout as a string", cfg: yes, args: `{"command": "true", "timeout": "10"}`,
			want: Result{IsError: true, ExitCode: -1, Content: `shell: argument "timeout" must be an integer, not a JSON string`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, map[string]string{"marker.txt": "here"}, tt.cfg)
			got := call(t, Shell{}, ws, tt.args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("shell(%s) mismatch (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

func TestShellAskError(t *testing.T) {
	boom := errors.New("terminal closed")
	ws := newWorkspace(t, nil, Config{Policy: Policy{Ask: func(context.Context, string) (bool, error) { return false, boom }}})
	_, err := Shell{}.Run(context.Background(), ws, json.RawMessage(`{"command": "make"}`))
	if !errors.Is(err, boom) {
		t.Errorf("shell with a failing Ask: error %v, want %v", err, boom)
	}
}

// TestShellHugeOutput checks that output far beyond the capture keeps its
// first and last lines and counts the lines cut exactly.
func TestShellHugeOutput(t *testing.T) {
	ws := newWorkspace(t, nil, yes)
	r := call(t, Shell{}, ws, `{"command": "seq 1 2000000"}`)
	lines := strings.Split(r.Content, "\n")
	if lines[0] != "exit code 0" || lines[1] != "1" || lines[len(lines)-1] != "2000000" {
		t.Fatalf("seq 1 2000000 = %q ... %q", lines[:3], lines[len(lines)-3:])
	}
	// 10 head lines and 30 tail lines fit the default 1,536 characters.
	if want := "[1999960 lines cut]"; lines[11] != want {
		t.Errorf("marker = %q, want %q", lines[11], want)
	}
}

// childPID reads the "child=PID" line a test command prints.
func childPID(t *testing.T, out string) int {
	t.Helper()
	m := regexp.MustCompile(`child=(\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no child=PID in %q", out)
	}
	pid, _ := strconv.Atoi(m[1])
	return pid
}

// alive reports whether pid runs: it exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// waitDead waits up to two seconds for pid to die.
func waitDead(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	t.Errorf("child process %d still runs", pid)
}

// sleeper starts a child sleep that outlives the shell unless killed.
const sleeper = `sleep 300 & echo child=$!; wait`

func TestShellTimeoutKillsChildren(t *testing.T) {
	ws := newWorkspace(t, nil, yes)
	start := time.Now()
	r := call(t, Shell{}, ws, `{"command": "`+sleeper+`", "timeout": 1}`)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a 1 s timeout took %v", took)
	}
	if !r.IsError || r.ExitCode != -1 || !r.Ran || r.Command != sleeper || !strings.HasPrefix(r.Content, "timed out after 1s; the command and its child processes were killed\n") {
		t.Errorf("result = %+v, want a timeout of a command that ran", r)
	}
	waitDead(t, childPID(t, r.Content))
}

func TestShellTimeoutIsCapped(t *testing.T) {
	ws := newWorkspace(t, nil, Config{MaxShellTimeout: time.Second, Policy: Policy{Yes: true}})
	r := call(t, Shell{}, ws, `{"command": "`+sleeper+`", "timeout": 100}`)
	if !strings.HasPrefix(r.Content, "timed out after 1s") {
		t.Errorf("result = %q, want a timeout after the 1 s maximum", r.Content)
	}
	waitDead(t, childPID(t, r.Content))
}

func TestShellCancelKillsChildren(t *testing.T) {
	ws := newWorkspace(t, nil, yes)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel once the child runs (the command marks it in the workspace),
	// however long a busy machine takes to start it.
	var cancelled atomic.Int64 // when, in nanoseconds since the Unix epoch
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(filepath.Join(ws.Root(), "started")); err == nil {
				cancelled.Store(time.Now().UnixNano())
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	r, err := Shell{}.Run(ctx, ws, json.RawMessage(`{"command": "sleep 300 & echo child=$!; touch started; wait"}`))
	if err != nil {
		t.Fatal(err)
	}
	if at := cancelled.Load(); at == 0 {
		t.Fatal("the command ended before it was cancelled")
	} else if took := time.Since(time.Unix(0, at)); took > 5*time.Second {
		t.Errorf("cancelling took %v", took)
	}
	if !r.IsError || r.ExitCode != -1 || !r.Ran || !strings.HasPrefix(r.Content, "stopped: context canceled; the command and its child processes were killed\n") {
		t.Errorf("result = %+v, want a cancellation of a command that ran", r)
	}
	waitDead(t, childPID(t, r.Content))
}

// TestShellKillsLeftovers checks that a process left in the background
// does not keep the call waiting, and is killed.
// TestShellCancelledBeforeStart: a call whose context is done before the
// command starts names the command but did not run it.
func TestShellCancelledBeforeStart(t *testing.T) {
	ws := newWorkspace(t, nil, yes)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Shell{}.Run(ctx, ws, json.RawMessage(`{"command": "touch ran"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Result{IsError: true, ExitCode: -1, Command: "touch ran", Content: "shell: stopped: context canceled"}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("shell with a done context mismatch (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), "ran")); err == nil {
		t.Error("the command ran")
	}
}

func TestShellKillsLeftovers(t *testing.T) {
	ws := newWorkspace(t, nil, yes)
	start := time.Now()
	r := call(t, Shell{}, ws, `{"command": "sleep 300 & echo child=$!"}`)
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the call took %v", took)
	}
	if r.IsError || r.ExitCode != 0 {
		t.Errorf("result = %+v, want exit code 0", r)
	}
	waitDead(t, childPID(t, r.Content))
}
