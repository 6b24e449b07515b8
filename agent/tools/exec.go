package tools

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// runCommand runs command and kills its process group when it ends, times
// out or ctx is done.
func runCommand(ctx context.Context, ws *Workspace, command string, timeout time.Duration) (Result, error) {
	cmd := exec.Command("bash", "-c", command)
	cmd.Dir = ws.root
	cmd.Env = append(os.Environ(), "GIT_PAGER=cat", "PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	startGroup(cmd)
	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{}, &Error{Op: "run shell", Path: command, Err: err}
	}
	defer pr.Close()
	cmd.Stdout, cmd.Stderr = pw, pw
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return Result{}, &Error{Op: "run shell", Path: command, Err: err}
	}
	out := newCapture(captureLimit)
	copied := make(chan struct{})
	go func() {
		io.Copy(out, pr)
		close(copied)
	}()
	waited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(waited)
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var stopped string
	select {
	case <-waited:
	case <-timer.C:
		stopped = fmt.Sprintf("timed out after %v", timeout)
	case <-ctx.Done():
		stopped = fmt.Sprintf("stopped: %v", context.Cause(ctx))
	}
	select {
	case <-waited:
		stopped = "" // it ended on its own as the stop came
	default:
	}
	killGroup(cmd) // the command on a stop, else what it left running
	<-waited
	select {
	case <-copied:
	case <-time.After(pipeGrace):
		pr.Close()
		<-copied
	}
	return commandResult(ws, out, cmd.ProcessState, stopped), nil
}
