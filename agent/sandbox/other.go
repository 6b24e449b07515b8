//go:build !linux

package sandbox

import (
	"os"
	"os/exec"
	"sync/atomic"
)

// mainCalled is set by Main.
var mainCalled atomic.Bool

// Main only records that it was called: there is no supervisor here.
func Main() { mainCalled.Store(true) }

// Available is 1 on macOS with sandbox-exec, else 0.
func Available() int {
	if _, ok := seatbelt(Command{}); ok {
		return 1
	}
	return 0
}

// exitCode is a finished process's exit code, -1 for one a signal ended.
func exitCode(state *os.ProcessState) int { return state.ExitCode() }

// supervised is c itself, in a process group of its own where there are
// groups, under sandbox-exec on macOS.
func supervised(c Command) (*exec.Cmd, error) {
	if !mainCalled.Load() {
		return nil, &Error{Op: "start", Arg: c.Args[0], Err: ErrNoMain}
	}
	args := c.Args
	if profile, ok := seatbelt(c); ok {
		args = append([]string{"/usr/bin/sandbox-exec", "-p", profile}, args...)
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = c.env()
	newGroup(cmd)
	return cmd, nil
}

// terminate and kill end the command's process group.
func terminate(cmd *exec.Cmd) { killGroup(cmd) }
func kill(cmd *exec.Cmd)      { killGroup(cmd) }
