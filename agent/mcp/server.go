package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loopagent/loop/agent/sandbox"
)

// closeGrace is how long Close waits for a server to exit once its
// standard input is closed, before it is stopped with everything it
// started.
const closeGrace = 2 * time.Second

// server is one running server: its process under the sandbox's
// supervisor, its session, and the end of what it wrote to stderr.
type server struct {
	name    string
	proc    *sandbox.Process
	session *sdk.ClientSession
	stderr  *tail
	schemas *schemaCapture
	timeout time.Duration // of a call
	close   sync.Once
}

// startServer starts s in dir and opens its session: the initialize
// handshake, within startTimeout. A server that does not start, exits or
// does not answer is an *Error naming it.
func startServer(ctx context.Context, name string, s Server, o Options) (*server, error) {
	fail := func(err error) error { return &Error{Op: "start server", Subject: name, Err: err} }
	if err := lookCommand(s); err != nil {
		return nil, fail(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fail(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fail(err)
	}
	srv := &server{name: name, stderr: &tail{}, schemas: &schemaCapture{}, timeout: o.callTimeout()}
	// Unconfined (the user's own program, which may need the network and
	// its caches), but under the supervisor: what it starts ends with it,
	// and with loop.
	srv.proc, err = sandbox.Start(sandbox.Command{Args: append([]string{s.Command}, s.Args...), Dir: o.Dir, Env: environ(s.Env),
		Stdin: inR, Stdout: outW, Stderr: srv.stderr, Spec: sandbox.Spec{Off: true}})
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fail(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "loop", Version: "1"},
		&sdk.ClientOptions{Logger: o.logger(), Capabilities: &sdk.ClientCapabilities{}})
	startCtx, cancel := context.WithTimeout(ctx, o.startTimeout())
	defer cancel()
	transport := &captureTransport{Transport: &sdk.IOTransport{Reader: outR, Writer: inW}, seen: srv.schemas}
	srv.session, err = client.Connect(startCtx, transport, nil)
	if err != nil {
		err = srv.why(startCtx, err, o.startTimeout(), "the initialize handshake")
		inW.Close()
		outR.Close()
		srv.stop()
		return nil, fail(err)
	}
	return srv, nil
}

// lookCommand checks that a command without a slash is in PATH, for a
// clearer message than the supervisor's. An Env that sets PATH is left to
// the server's start.
func lookCommand(s Server) error {
	if strings.Contains(s.Command, "/") || s.Env["PATH"] != "" {
		return nil
	}
	if _, err := exec.LookPath(s.Command); err != nil {
		var ee *exec.Error
		if errors.As(err, &ee) {
			err = ee.Err
		}
		return fmt.Errorf("command %q: %w", s.Command, err)
	}
	return nil
}

// environ is loop's environment with env added.
func environ(env map[string]string) []string {
	out := os.Environ()
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

// why explains a failed exchange with the server: it exited (with its
// status and the end of its stderr), it did not answer within d, or the
// error itself. what names the exchange.
func (s *server) why(ctx context.Context, err error, d time.Duration, what string) error {
	timedOut := errors.Is(ctx.Err(), context.DeadlineExceeded)
	wait := closeGrace
	if timedOut {
		wait = 0
	}
	if exited, ok := s.exited(wait); ok {
		return fmt.Errorf("%w (%s)%s", ErrExited, exited, s.stderr.quote())
	}
	if timedOut {
		return fmt.Errorf("%w: %s took more than %v%s", ErrTimeout, what, d, s.stderr.quote())
	}
	return fmt.Errorf("%s: %w%s", what, err, s.stderr.quote())
}

// exited reports whether the server's process has ended, and how,
// waiting for it up to wait: a closed pipe is seen before the process is
// reaped.
func (s *server) exited(wait time.Duration) (string, bool) {
	select {
	case <-s.proc.Done():
	default:
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case <-s.proc.Done():
		case <-timer.C:
			return "", false
		}
	}
	code, err := s.proc.Wait()
	switch {
	case err != nil:
		return err.Error(), true
	case code > 128:
		return fmt.Sprintf("killed by signal %d", code-128), true
	}
	return fmt.Sprintf("exit status %d", code), true
}

// Close ends the session, which closes the server's standard input, and
// gives the server closeGrace to exit before it is stopped with every
// process it started. Calling it twice is a no-op.
func (s *server) Close() {
	s.close.Do(func() {
		if s.session != nil {
			s.session.Close()
		}
		select {
		case <-s.proc.Done():
		case <-time.After(closeGrace):
		}
		s.stop()
	})
}

// stop ends the server and what it started at once.
func (s *server) stop() { s.proc.Stop() }

// tail keeps the end of what a server writes to stderr, for messages.
// It is safe for concurrent use.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

// tailMax is how much of a server's stderr a message quotes.
const tailMax = 1024

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 4*tailMax {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailMax:]...)
	}
	return len(p), nil
}

// quote is "; its stderr ends: ..." with the last lines the server wrote,
// or "" when it wrote none.
func (t *tail) quote() string {
	t.mu.Lock()
	text := string(t.buf[max(0, len(t.buf)-tailMax):])
	t.mu.Unlock()
	text = strings.TrimSpace(strings.ToValidUTF8(text, "\uFFFD"))
	if text == "" {
		return ""
	}
	return fmt.Sprintf("; its stderr ends: %q", text)
}

// discard is a logger that drops everything, for a nil Options.Logger.
var discard = slog.New(slog.DiscardHandler)
