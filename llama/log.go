package llama

/*
#include "bridge.h"
*/
import "C"

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// logState turns llama.cpp's log fragments into slog records. llama.cpp
// writes lines in pieces (GGML_LOG_LEVEL_CONT continues the previous piece),
// so text is buffered until a newline.
var logState struct {
	sync.Mutex
	logger *slog.Logger
	level  slog.Level
	buf    strings.Builder
	// capture, when set, collects the error records of one operation.
	capture *errorCapture
}

// errorCapture collects the error messages llama.cpp logs during one call
// that reports failure only by its return value (model load, context init).
type errorCapture struct{ lines []string }

func captureErrors() *errorCapture {
	c := &errorCapture{}
	logState.Lock()
	logState.capture = c
	logState.Unlock()
	return c
}

// stop ends the capture and returns the messages joined by "; ".
func (c *errorCapture) stop() string {
	logState.Lock()
	if logState.capture == c {
		if logState.buf.Len() > 0 {
			emitLog()
		}
		logState.capture = nil
	}
	logState.Unlock()
	return strings.Join(c.lines, "; ")
}

func init() {
	logState.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
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
func loopGoLog(level C.int, text *C.char) {
	s := C.GoString(text)
	logState.Lock()
	defer logState.Unlock()
	if int(level) != logCont {
		if logState.buf.Len() > 0 { // a new record starts: flush an unterminated one
			emitLog()
		}
		logState.level = slogLevel(int(level))
	}
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			logState.buf.WriteString(s)
			return
		}
		logState.buf.WriteString(s[:i])
		emitLog()
		s = s[i+1:]
	}
}

func emitLog() {
	msg := strings.TrimSpace(logState.buf.String())
	logState.buf.Reset()
	if msg == "" {
		return
	}
	if logState.capture != nil && logState.level >= slog.LevelError {
		logState.capture.lines = append(logState.capture.lines, msg)
	}
	logState.logger.Log(context.Background(), logState.level, msg, "source", "llama.cpp")
}
