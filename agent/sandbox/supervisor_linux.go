package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// envSupervisor carries the plan from the program to its supervisor. Its
// presence makes Main run the supervisor; the supervisor removes it before
// it starts the command.
const envSupervisor = "LOOP_SANDBOX_SUPERVISOR"

// mainCalled is set by Main in a program that is not a supervisor.
var mainCalled atomic.Bool

// plan is what the supervisor needs to know, computed by the program.
type plan struct {
	Parent   int      // the program's process id: the supervisor dies with it
	Confine  bool     // apply Landlock and, without AllowNet, seccomp
	AllowNet bool     // leave the network open
	Root     string   // the workspace: writable but for .git
	Dirs     []string // more writable directories
	Files    []string // writable files (/dev/null and its kin)
}

// Main runs the supervisor and exits when this process was started as
// one; otherwise it returns at once. Call it first thing in main.
func Main() {
	raw, ok := os.LookupEnv(envSupervisor)
	if !ok {
		mainCalled.Store(true)
		return
	}
	os.Exit(supervise(raw, os.Args[1:]))
}

// supervised is the supervisor's command for c: this program again, with
// the plan in its environment, in a process group of its own, told to end
// when the program dies.
func supervised(c Command) (*exec.Cmd, error) {
	if !mainCalled.Load() {
		return nil, &Error{Op: "start", Arg: c.Args[0], Err: ErrNoMain}
	}
	p := plan{Parent: os.Getpid(), Root: c.Dir, AllowNet: c.Spec.AllowNet, Confine: !c.Spec.Off && Available() > 0}
	if p.Confine {
		var err error
		if p.Dirs, p.Files, err = writable(c.Spec); err != nil {
			return nil, err
		}
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, &Error{Op: "start", Arg: c.Args[0], Err: err}
	}
	env := slices.DeleteFunc(slices.Clone(c.env()), func(kv string) bool { return strings.HasPrefix(kv, envSupervisor+"=") })
	cmd := exec.Command("/proc/self/exe", c.Args...)
	cmd.Env = append(env, envSupervisor+"="+string(b))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	return cmd, nil
}

// supervise is the supervisor: it starts the command confined, waits for
// it or for a signal to stop, then kills what is left. It returns the
// supervisor's exit code: the command's.
func supervise(raw string, args []string) int {
	os.Unsetenv(envSupervisor)
	var p plan
	if err := json.Unmarshal([]byte(raw), &p); err != nil || len(args) == 0 {
		fmt.Fprintf(os.Stderr, "loop sandbox: bad supervisor plan: %v\n", err)
		return 126
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "loop sandbox: subreaper: %v\n", err)
		return 126
	}
	if os.Getppid() != p.Parent {
		return 128 + int(syscall.SIGTERM) // the program ended before its death signal was set
	}
	// The command inherits the restrictions of the thread that forks it,
	// so this goroutine confines its own thread and starts it from there.
	runtime.LockOSThread()
	if p.Confine {
		if err := confine(p); err != nil {
			fmt.Fprintf(os.Stderr, "loop sandbox: %v\n", err)
			return 126
		}
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "loop sandbox: %v\n", err)
		return 127
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	code := 128 + int(syscall.SIGTERM)
	select {
	case <-exited:
		code = exitCode(cmd.ProcessState)
	case <-stop:
	}
	killDescendants()
	return code
}

// exitCode is a finished process's exit code, 128+N for signal N as a
// shell reports it.
func exitCode(state *os.ProcessState) int {
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return state.ExitCode()
}

// terminate asks the supervisor to end the command.
func terminate(cmd *exec.Cmd) { cmd.Process.Signal(syscall.SIGTERM) }

// kill kills the supervisor's process group, for a supervisor that did not
// end when asked.
func kill(cmd *exec.Cmd) { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// killDescendants kills every descendant of this process and reaps them,
// until none is left. As the child subreaper, this process inherits every
// orphan below it, so a process that double-forked or called setsid is
// still found.
func killDescendants() {
	self := os.Getpid()
	for range 5000 { // a process in uninterruptible sleep may hold out; stop trying after some seconds
		for _, pid := range descendants(self) {
			unix.Kill(pid, unix.SIGKILL)
		}
		if !reap() {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// reap collects the exited children; it reports whether children remain.
func reap() bool {
	for {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
		switch {
		case errors.Is(err, unix.EINTR):
		case err != nil:
			return false // ECHILD: none left
		case pid == 0:
			return true
		}
	}
}

// descendants lists the processes below root, from /proc.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, ppid, ok := parentOf(e.Name())
		if ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		kids := children[queue[0]]
		queue = append(queue[1:], kids...)
		out = append(out, kids...)
	}
	return out
}

// parentOf reads the parent of the process named by a /proc entry.
func parentOf(name string) (pid, ppid int, ok bool) {
	pid, err := strconv.Atoi(name)
	if err != nil {
		return 0, 0, false
	}
	b, err := os.ReadFile("/proc/" + name + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0, false
	}
	var state string
	if _, err := fmt.Sscan(string(b[i+1:]), &state, &ppid); err != nil {
		return 0, 0, false
	}
	return pid, ppid, true
}
