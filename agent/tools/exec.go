package tools

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/loopagent/loop/agent/sandbox"
)

// runCommand runs command under the workspace's sandbox and ends it, with
// every process it started, when it times out or ctx is done; what it left
// running in the background ends when it does.
func runCommand(ctx context.Context, ws *Workspace, command string, timeout time.Duration) (Result, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{}, &Error{Op: "run shell", Path: command, Err: err}
	}
	defer pr.Close()
	p, err := sandbox.Start(sandbox.Command{
		Args:   []string{"bash", "-c", command},
		Dir:    ws.root,
		Env:    append(os.Environ(), "GIT_PAGER=cat", "PAGER=cat", "GIT_TERMINAL_PROMPT=0"),
		Stdout: pw, Stderr: pw,
		Spec: ws.cfg.Sandbox,
	})
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
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var stopped string
	select {
	case <-p.Done():
	case <-timer.C:
		stopped = fmt.Sprintf("timed out after %v", timeout)
	case <-ctx.Done():
		stopped = fmt.Sprintf("stopped: %v", context.Cause(ctx))
	}
	p.Stop()
	code, err := p.Wait()
	if err != nil {
		return Result{}, &Error{Op: "run shell", Path: command, Err: err}
	}
	if code >= 0 {
		stopped = "" // it ended on its own as the stop came
	}
	select {
	case <-copied:
	case <-time.After(pipeGrace):
		pr.Close()
		<-copied
	}
	return commandResult(ws, out, code, stopped), nil
}

// commandResult is what the model reads about a command that ran.
func commandResult(ws *Workspace, out *capture, code int, stopped string) Result {
	header := fmt.Sprintf("exit code %d", code)
	r := Result{ExitCode: code, Ran: true}
	if stopped != "" {
		header = stopped + "; the command and its child processes were killed"
		r = Result{IsError: true, ExitCode: -1, Ran: true}
	}
	text := out.Text(ws.cfg.HeadLines, ws.cfg.TailLines, max(ws.cfg.ResultChars-len(header)-1, 64))
	if out.total == 0 {
		text = "(no output)"
	}
	text = strings.TrimSuffix(text, "\n")
	r.Content = header + "\n" + text
	return r
}
