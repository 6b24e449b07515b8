package sandbox

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// Command is one command to run confined.
type Command struct {
	// Args is the program and its arguments, like bash -c "go test ./...".
	Args []string
	// Dir is the workspace root: the command starts there and may write
	// below it (its .git aside).
	Dir string
	// Env is the command's environment; nil means the program's own.
	Env []string
	// Stdin is the command's standard input; nil means empty. An *os.File
	// (a pipe's end, say) is handed to the command as it is.
	Stdin io.Reader
	// Stdout and Stderr receive the command's output; nil discards it.
	// An *os.File is handed to the command as it is.
	Stdout, Stderr io.Writer
	// Spec is what the command may do beyond reading.
	Spec Spec
}

// Error is a command that could not be started or supervised.
type Error struct {
	Op  string // "start", "wait", "writable", ...
	Arg string // the command or the path concerned
	Err error
}

func (e *Error) Error() string {
	if e.Arg == "" {
		return "sandbox: " + e.Op + ": " + e.Err.Error()
	}
	return "sandbox: " + e.Op + ": " + e.Arg + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// ErrNoMain is returned by Start in a program that did not call Main at
// its start: the supervisor is that program started again, and without
// Main it would run the program instead.
var ErrNoMain = errors.New("sandbox.Main was not called at the start of this program")

// stopGrace is how long Stop waits for the supervisor to kill the
// command's processes before it kills the supervisor's process group
// itself.
const stopGrace = 3 * time.Second

// Process is a started command. Wait and Stop may be called from
// different goroutines.
type Process struct {
	cmd     *exec.Cmd
	done    chan struct{}
	waitErr error
	stop    sync.Once
	stopped atomic.Bool // set by Stop before it signals
}

// Start starts c under its supervisor and returns at once.
func Start(c Command) (*Process, error) {
	if len(c.Args) == 0 {
		return nil, &Error{Op: "start", Err: errors.New("no command")}
	}
	cmd, err := supervised(c)
	if err != nil {
		return nil, err
	}
	cmd.Dir = c.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	if err := cmd.Start(); err != nil {
		return nil, &Error{Op: "start", Arg: c.Args[0], Err: err}
	}
	p := &Process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// Done is closed when the command and every process it started are gone.
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits for the command and every process it started to end, and
// returns the command's exit code: 128+N when a signal N ended it, -1
// when it was stopped. An error is a failure to wait, not a command that
// failed.
func (p *Process) Wait() (int, error) {
	<-p.done
	state := p.cmd.ProcessState
	if p.stopped.Load() {
		return -1, nil
	}
	if state == nil {
		return -1, &Error{Op: "wait", Arg: p.cmd.Path, Err: p.waitErr}
	}
	return exitCode(state), nil
}

// Stop ends the command and every process it started, and waits until
// they are gone. Stopping a finished command does nothing.
func (p *Process) Stop() {
	p.stop.Do(func() {
		select {
		case <-p.done:
			return
		default:
		}
		p.stopped.Store(true)
		terminate(p.cmd)
		select {
		case <-p.done:
		case <-time.After(stopGrace):
			kill(p.cmd)
			<-p.done
		}
	})
	<-p.done
}

// Run runs c to its end and returns its exit code. Closing stop ends it
// early (exit code -1).
func Run(c Command, stop <-chan struct{}) (int, error) {
	p, err := Start(c)
	if err != nil {
		return -1, err
	}
	select {
	case <-p.done:
	case <-stop:
		p.Stop()
		return -1, nil
	}
	return p.Wait()
}

// env is the command's environment: c.Env, or the program's own.
func (c Command) env() []string {
	if c.Env == nil {
		return os.Environ()
	}
	return c.Env
}
