//go:build unix

package tools

import (
	"os/exec"
	"syscall"
)

// startGroup makes the command the leader of a new process group, so that
// killGroup reaches every process it starts.
func startGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills the command's process group. A group that is already
// gone is no error.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
