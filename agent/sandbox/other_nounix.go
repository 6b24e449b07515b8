//go:build !unix

package sandbox

import "os/exec"

// newGroup does nothing where there are no process groups.
func newGroup(cmd *exec.Cmd) {}

// killGroup kills the command; its children may survive.
func killGroup(cmd *exec.Cmd) { cmd.Process.Kill() }

// seatbelt is macOS's alone.
func seatbelt(Command) (string, bool) { return "", false }
