package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"

	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
	"golang.org/x/term"
)

// `loop run` without a task on a terminal is a conversation: each line
// is the next task in the same session, on the same agent, so the
// history and the model's warm KV cache carry over from one task to the
// next. Lines that start with "/" are commands (conversationHelp). Ctrl-C
// stops the task that runs and the prompt comes back; Ctrl-C at the
// prompt, a second one while a task stops, SIGTERM or SIGHUP end the
// conversation. Without a terminal on standard input, each line is a
// task and Ctrl-C ends the run (interactive).

// conversationHelp is the one line that says what the prompt takes.
const conversationHelp = "type a task, or /undo (take back the last task's file changes), /compact, /clear, /exit (or Ctrl-D)"

// onTerminal reports whether f is a terminal.
func onTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// converse prepares a conversation before anything starts: the signals
// it handles itself, standard input read a line at a time for the prompt
// and the shell policy's questions alike, and the copies /undo restores.
// The context it returns ends only with the conversation. end undoes it.
func (f *runFlags) converse(ctx context.Context, stderr io.Writer) (context.Context, func()) {
	f.keys = watchInterrupts(ctx)
	f.lines = &lineReader{r: bufio.NewReader(os.Stdin)}
	var err error
	if f.undo, err = newUndo(f.dir, f.session.storeDir()); err != nil {
		fmt.Fprintf(stderr, "loop run: /undo is off: %v\n", err)
	}
	return f.keys.ctx, func() {
		if f.undo != nil {
			f.undo.Close()
		}
		f.keys.stop()
	}
}

// newUndo keeps the copies /undo restores in the system's temporary
// directory, or else beside the sessions: the first of the two that is
// outside the workspace, where the model's commands cannot change them.
func newUndo(workspace, sessions string) (*tools.Undo, error) {
	ws, err := realPath(workspace)
	if err != nil {
		return nil, err
	}
	for _, dir := range []string{os.TempDir(), sessions} {
		d, err := realPath(dir)
		if dir == "" || err != nil {
			continue
		}
		if rel, err := filepath.Rel(ws, d); err == nil && filepath.IsLocal(rel) {
			continue
		}
		return tools.NewUndo(dir)
	}
	return nil, fmt.Errorf("both %s and %s are inside the workspace, where its copies would not be safe", os.TempDir(), sessions)
}

// realPath is path made absolute, its symlinks resolved.
func realPath(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// termConversation is `loop run`'s conversation on a terminal.
type termConversation struct {
	a       *loop.Agent
	keys    *interrupts
	lines   *lineReader
	undo    *tools.Undo // nil: /undo is off
	sink    transcript.Sink
	session string
	stderr  io.Writer
}

func (f *runFlags) termConversation(a *loop.Agent, sinks *runSinks, stderr io.Writer) *termConversation {
	c := &termConversation{a: a, keys: f.keys, lines: f.lines, undo: f.undo, sink: sinks.multi, stderr: stderr}
	if f.session.s != nil {
		c.session = f.session.s.ID
	}
	return c
}

// run goes on with first, an unfinished task of a continued session,
// when there is one, then prompts for tasks and commands until /exit,
// the end of the input (Ctrl-D) or a signal at the prompt.
func (c *termConversation) run(first string) error {
	fmt.Fprintf(c.stderr, "loop run: session %s: %s\n", c.session, conversationHelp)
	if first != "" {
		c.task(first, false)
	}
	for {
		fmt.Fprint(c.stderr, "> ")
		line, err := c.lines.next(c.keys.ctx)
		switch {
		case errors.Is(err, io.EOF):
			fmt.Fprintln(c.stderr)
			return nil
		case err != nil:
			fmt.Fprintln(c.stderr)
			return err
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasPrefix(line, "/"):
			if c.command(line) {
				return nil
			}
		default:
			c.task(line, true)
		}
	}
}

// task runs one task (or, with add false, goes on with the conversation
// as it stands) under a context that Ctrl-C cancels. The outcome line is
// the view's; a stopped task says the conversation goes on.
func (c *termConversation) task(text string, add bool) {
	if c.undo != nil {
		c.undo.Begin()
	}
	ctx, done := c.keys.task()
	defer done()
	var out loop.Outcome
	if add {
		out = c.a.Run(ctx, text)
	} else {
		out = c.a.Continue(ctx, text)
	}
	if out.Kind == loop.Cancelled && c.keys.ctx.Err() == nil {
		fmt.Fprintln(c.stderr, "stopped; the conversation goes on (Ctrl-C at the prompt ends it)")
	}
}

// command runs a /command and reports whether it ends the conversation.
func (c *termConversation) command(line string) (exit bool) {
	switch name := strings.Fields(line)[0]; name {
	case "/exit", "/quit":
		return true
	case "/undo":
		c.undoLast()
	case "/compact":
		c.compact()
	case "/clear":
		c.clear()
	default:
		fmt.Fprintf(c.stderr, "unknown command %s: %s\n", name, conversationHelp)
	}
	return false
}

// undoLast restores the files the last task changed, removes those it
// created, and says so on the terminal, in the transcript and to the
// model with the next task.
func (c *termConversation) undoLast() {
	if c.undo == nil {
		fmt.Fprintln(c.stderr, "undo: off (no place outside the workspace for its copies)")
		return
	}
	done, err := c.undo.Restore(c.a.Workspace())
	switch {
	case err != nil:
		fmt.Fprintf(c.stderr, "undo: %v\n", err)
		return
	case len(done.Restored)+len(done.Removed)+len(done.Failed) == 0:
		fmt.Fprintln(c.stderr, "undo: the last task changed no file with edit_file or write_file")
		return
	}
	var parts []string
	if len(done.Restored) > 0 {
		parts = append(parts, "restored "+strings.Join(done.Restored, ", "))
	}
	if len(done.Removed) > 0 {
		parts = append(parts, "removed "+strings.Join(done.Removed, ", "))
	}
	for _, f := range done.Failed {
		parts = append(parts, "not taken back: "+f)
	}
	detail := "undo: " + strings.Join(parts, "; ")
	c.sink.Emit(transcript.Event{Kind: transcript.KindSession, Session: c.session, Detail: detail})
	fmt.Fprintln(c.stderr, detail)
	c.a.Aside("Note: the user took back the file changes of the last task (" + strings.TrimPrefix(detail, "undo: ") + "). " +
		"Those files are as they were before it; read a file again before you edit it.")
}

// compact runs the context manager's compaction now and says what it
// freed (the view shows the compact event's detail). Ctrl-C stops it, as
// it stops a task: the model may be writing the summary.
func (c *termConversation) compact() {
	ctx, done := c.keys.task()
	defer done()
	r, err := c.a.Compact(ctx)
	switch {
	case errors.Is(err, loop.ErrNoContext):
		fmt.Fprintln(c.stderr, "compact: context management is off (--no-context)")
	case err != nil:
		fmt.Fprintf(c.stderr, "compact: %v\n", err)
	case r.Removed == 0 && r.Stubbed == 0 && !r.Reset:
		fmt.Fprintf(c.stderr, "compact: nothing to free (%d prompt tokens)\n", r.After)
	default:
		fmt.Fprintf(c.stderr, "compact: freed %d prompt tokens\n", r.Before-r.After)
	}
}

// clear starts a new conversation in the same session. The transcript
// marks the boundary; the files and the /undo record stay as they are.
func (c *termConversation) clear() {
	if err := c.a.Clear(); err != nil {
		fmt.Fprintf(c.stderr, "clear: %v\n", err)
		return
	}
	c.sink.Emit(transcript.Event{Kind: transcript.KindSession, Session: c.session, Detail: "cleared: a new conversation starts here"})
	fmt.Fprintln(c.stderr, "clear: a new conversation; the next task starts it (loop run --continue goes on from here too)")
}

// interrupts turns the signals that cancel a command into a
// conversation's: SIGINT (Ctrl-C) while a task runs cancels that task's
// context only; SIGINT at the prompt or a second one in the same task,
// SIGTERM and SIGHUP end the conversation's context. Once it has ended,
// the signals are loop's no more: one more ends the process.
type interrupts struct {
	ctx     context.Context // the conversation's
	end     context.CancelFunc
	signals chan os.Signal
	mu      sync.Mutex
	step    context.CancelFunc // the running task's; nil at the prompt
	stopped bool               // the running task was cancelled
}

// watchInterrupts starts handling the signals. The context it makes does
// not end with parent, which main cancels on the first signal: it ends
// with the conversation.
func watchInterrupts(parent context.Context) *interrupts {
	ctx, end := context.WithCancel(context.WithoutCancel(parent))
	in := &interrupts{ctx: ctx, end: end, signals: make(chan os.Signal, 4)}
	signal.Notify(in.signals, cancelSignals...)
	go func() {
		for {
			select {
			case sig := <-in.signals:
				in.handle(sig)
			case <-ctx.Done():
				return
			}
		}
	}()
	return in
}

func (in *interrupts) handle(sig os.Signal) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.step != nil {
		in.step()
		if sig == os.Interrupt && !in.stopped {
			in.stopped = true
			return
		}
	}
	in.end()
	signal.Stop(in.signals)
}

// task returns the context of one task, which Ctrl-C cancels; done ends
// it.
func (in *interrupts) task() (ctx context.Context, done func()) {
	ctx, cancel := context.WithCancel(in.ctx)
	in.mu.Lock()
	in.step, in.stopped = cancel, false
	in.mu.Unlock()
	return ctx, func() {
		in.mu.Lock()
		in.step = nil
		in.mu.Unlock()
		cancel()
	}
}

// stop ends the conversation's context and hands the signals back.
func (in *interrupts) stop() {
	in.end()
	signal.Stop(in.signals)
}

// lineReader reads standard input a line at a time for whoever asks
// next: the prompt, or the shell policy's question before a command. A
// read that a cancelled context gave up on goes on, and its line goes to
// the next asker, so that no line is lost or read twice.
type lineReader struct {
	r       *bufio.Reader
	mu      sync.Mutex
	pending chan lineRead // the read under way; nil when none is
}

type lineRead struct {
	line string
	err  error
}

// next returns the next line, without its newline, or ctx's error.
func (l *lineReader) next(ctx context.Context) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.pending == nil {
		l.pending = make(chan lineRead, 1)
		go func(r *bufio.Reader, out chan<- lineRead) {
			line, err := readLine(r, maxTaskLine)
			out <- lineRead{line, err}
		}(l.r, l.pending)
	}
	select {
	case <-ctx.Done():
		return "", ctx.Err()
	case got := <-l.pending:
		l.pending = nil
		return got.line, got.err
	}
}

// ask is askOn's question on the conversation's lines.
func (l *lineReader) ask(stderr io.Writer) func(ctx context.Context, command string) (bool, error) {
	return func(ctx context.Context, command string) (bool, error) {
		fmt.Fprintf(stderr, "\nrun %q? [y/N] ", command)
		line, err := l.next(ctx)
		if err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		return strings.EqualFold(strings.TrimSpace(line), "y"), nil
	}
}
