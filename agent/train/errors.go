package train

import (
	"errors"
	"strconv"
)

// Sentinel errors. The errors of this package wrap them in an *Error, so
// test with errors.Is.
var (
	// ErrNoChats means the data file holds no chat.
	ErrNoChats = errors.New("no chats")
	// ErrNoMessages means a line of the data has no "messages".
	ErrNoMessages = errors.New(`no "messages"`)
	// ErrNoChatTemplate means the model has no chat template to render
	// the chats with.
	ErrNoChatTemplate = errors.New("no chat template")
	// ErrChatTooLong means a rendered chat does not fit a window: a
	// window never starts inside a chat, so a longer window or a shorter
	// chat is needed.
	ErrChatTooLong = errors.New("the chat does not fit a window")
	// ErrReplyNotFound means the assistant's tokens cannot be found in a
	// rendered chat (mask.go says how they are found); Config.TrainAll,
	// which trains every token, needs no reply found.
	ErrReplyNotFound = errors.New("the assistant's reply cannot be found")
	// ErrConfig means a Config field is out of its range.
	ErrConfig = errors.New("invalid config")
	// ErrCheckpoint means a checkpoint cannot be resumed: it is of
	// another base model, other chats or another recipe, or one of its
	// files is truncated, altered or missing. A folder without a
	// checkpoint is reported with fs.ErrNotExist instead.
	ErrCheckpoint = errors.New("checkpoint cannot be resumed")
)

// Error records a failed operation, the data file and line it acted on,
// and the cause, in the manner of fs.PathError. Its message is the
// position and the cause as a compiler writes them, so that an editor
// can jump to the chat: "chats.jsonl:3: the chat is 735 tokens, more
// than a window of 512". Op is for programs and is not in the message.
type Error struct {
	Op   string // "read", "render", "config", "checkpoint", "resume"
	Path string // the data file (or the model, for its template, or a checkpoint's file); may be empty
	Line int    // the chat's line in Path, from 1; 0 when the error is not one chat's
	Err  error  // the cause
}

func (e *Error) Error() string {
	switch {
	case e.Path == "":
		return e.Err.Error()
	case e.Line == 0:
		return e.Path + ": " + e.Err.Error()
	}
	return e.Path + ":" + strconv.Itoa(e.Line) + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// described is a sentinel under a message that says what happened, so
// that the message reads as one sentence and errors.Is still finds the
// sentinel.
type described struct {
	msg string
	err error
}

func (d *described) Error() string { return d.msg }
func (d *described) Unwrap() error { return d.err }
