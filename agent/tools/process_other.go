//go:build !unix

package tools

import "os/exec"

// startGroup does nothing where there are no process groups.
func startGroup(cmd *exec.Cmd) {}

// killGroup kills the command's own process; its children may survive.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}
