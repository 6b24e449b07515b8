package llama

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
)

// logState turns llama.cpp's log fragments into slog records. llama.cpp
// writes lines in pieces (GGML_LOG_LEVEL_CONT continues the previous piece),
// so text is buffered per thread until a newline.
var logState struct {
	sync.Mutex
	logger *slog.Logger
	lines  map[uint64]*pendingLine
	// captures collect the error records of one call each, keyed by the
	// thread that makes the call (see captureErrors).
	captures map[uint64]*errorCapture
}

// pendingLine is a record one thread has not finished writing.
type pendingLine struct {
	level slog.Level
	buf   strings.Builder
}

// errorCapture collects the error messages llama.cpp logs during one call
// that reports failure only by its return value (model load, context init).
// Captures are per OS thread, so concurrent calls keep their own causes.
type errorCapture struct {
	tid   uint64
	lines []string
	// held, when holding, keeps every record of the call back from the
	// logger until the caller decides (see holdLogs).
	holding bool
	held    []heldRecord
}

type heldRecord struct {
	level slog.Level
	msg   string
}

// captureErrors starts collecting the errors that llama.cpp logs on this
// goroutine's thread, which it locks until stop.
func captureErrors() *errorCapture {
	runtime.LockOSThread()
	c := &errorCapture{tid: uint64(C.loop_thread_id())}
	logState.Lock()
	logState.captures[c.tid] = c
	logState.Unlock()
	return c
}

// holdLogs starts a capture that keeps every record llama.cpp logs on
// this thread from the logger; finish it with release.
func holdLogs() *errorCapture {
	c := captureErrors()
	logState.Lock()
	c.holding = true
	logState.Unlock()
	return c
}

// release ends a holdLogs capture: the held records go to the logger,
// unless drop says they report what the caller did on purpose (the errors
// llama.cpp logs for a decode that loop aborted).
func (c *errorCapture) release(drop bool) {
	c.stop()
	if drop {
		return
	}
	logState.Lock()
	l := logState.logger
	logState.Unlock()
	for _, r := range c.held {
		l.Log(context.Background(), r.level, r.msg, "source", "llama.cpp")
	}
}

// stop ends the capture and returns the messages joined by "; ".
func (c *errorCapture) stop() string {
	logState.Lock()
	if p := logState.lines[c.tid]; p != nil && p.buf.Len() > 0 {
		emitLog(c.tid, p)
	}
	delete(logState.captures, c.tid)
	logState.Unlock()
	runtime.UnlockOSThread()
	return strings.Join(c.lines, "; ")
}

func init() {
	logState.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	logState.lines = map[uint64]*pendingLine{}
	logState.captures = map[uint64]*errorCapture{}
	C.loop_install_log()
}

// SetLogger routes the logs of llama.cpp and ggml to l. The logger is
// process-wide because llama.cpp's log callback is. A nil l discards the logs,
// which is also the default: nothing is printed to stderr on its own.
func SetLogger(l *slog.Logger) {
	if l == nil {
		l = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	logState.Lock()
	logState.logger = l
	logState.Unlock()
}

// ggml_log_level values.
const (
	logNone  = 0
	logDebug = 1
	logInfo  = 2
	logWarn  = 3
	logError = 4
	logCont  = 5
)

func slogLevel(level int) slog.Level {
	switch level {
	case logDebug:
		return slog.LevelDebug
	case logWarn:
		return slog.LevelWarn
	case logError:
		return slog.LevelError
	}
	return slog.LevelInfo
}

//export loopGoLog
func loopGoLog(level C.int, text *C.char, tid C.uint64_t) {
	s := C.GoString(text)
	id := uint64(tid)
	logState.Lock()
	defer logState.Unlock()
	p := logState.lines[id]
	if p == nil {
		p = &pendingLine{}
		logState.lines[id] = p // one per thread that ever logged
	}
	if int(level) != logCont {
		if p.buf.Len() > 0 { // a new record starts: flush an unterminated one
			emitLog(id, p)
		}
		p.level = slogLevel(int(level))
	}
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			p.buf.WriteString(s)
			return
		}
		p.buf.WriteString(s[:i])
		emitLog(id, p)
		s = s[i+1:]
	}
}

// emitLog logs thread id's pending line, and keeps it for the thread's
// capture when it is an error. logState is locked.
func emitLog(id uint64, p *pendingLine) {
	msg := strings.TrimSpace(p.buf.String())
	p.buf.Reset()
	if msg == "" {
		return
	}
	c := logState.captures[id]
	if c != nil && p.level >= slog.LevelError {
		c.lines = append(c.lines, msg)
	}
	if c != nil && c.holding {
		c.held = append(c.held, heldRecord{p.level, msg})
		return
	}
	logState.logger.Log(context.Background(), p.level, msg, "source", "llama.cpp")
}
