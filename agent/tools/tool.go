package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Tool is one tool the model can call: data (name, description, schema)
// plus one function. A Tool holds no state between calls; everything a call
// may touch comes from the Workspace.
type Tool interface {
	// Name is the name the model calls the tool by, like "read_file".
	Name() string
	// Description is what the model reads about the tool: what it does and
	// what it returns, in one or two sentences.
	Description() string
	// Schema is the JSON Schema of the arguments: a flat object, required
	// properties first.
	Schema() json.RawMessage
	// ReadOnly reports whether the tool never changes the workspace, so
	// that calls to it may run concurrently.
	ReadOnly() bool
	// Run runs one call. A refusal, bad arguments or a failed operation is
	// a Result with IsError set, never a Go error; an error means the
	// harness itself failed.
	Run(ctx context.Context, ws *Workspace, args json.RawMessage) (Result, error)
}

// Result is what a call returns. Content is what the model reads.
type Result struct {
	// Content is the text the model reads, already cut to the
	// workspace's limits.
	Content string
	// IsError is set when the call did not do what it was asked: a
	// refusal, bad arguments, a missing file, a command that timed out.
	// A shell command that ran and exited non-zero is not an error of the
	// tool; its ExitCode says so.
	IsError bool
	// ExitCode is the exit status of a shell command, or -1 when the
	// command was refused, killed or did not start. Other tools leave it 0.
	ExitCode int
	// Changed lists the files the call wrote, relative to the workspace
	// root with forward slashes (edit_file, write_file). A shell command
	// may change files too; they are not listed.
	Changed []string
}

// Error is a failure of the harness, or a path the workspace refuses. A
// tool turns the refusals into a Result; only harness failures reach the
// caller as Go errors.
type Error struct {
	Op   string // "resolve", "open workspace", "run shell", ...
	Path string // the path or command concerned; may be empty
	Err  error
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Op + ": " + e.Err.Error()
	}
	return e.Op + ": " + e.Path + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Sentinels that an *Error wraps.
var (
	// ErrOutside is a path outside the workspace root: "..", an absolute
	// path elsewhere, or a symlink that leads out.
	ErrOutside = errors.New("outside the workspace root")
	// ErrBrokenLink is a path through a symlink whose target is missing,
	// which the workspace cannot check.
	ErrBrokenLink = errors.New("a symlink on this path points to a missing target")
	// ErrDuplicate is a tool name given twice to NewSet.
	ErrDuplicate = errors.New("duplicate tool name")
)

// errorResult is a failed call with its message.
func errorResult(format string, args ...any) Result {
	return Result{Content: fmt.Sprintf(format, args...), IsError: true}
}

// cancelled is the result of a call stopped by its context. Cancelling is
// not a failure of the harness: the caller sees ctx.Err() itself.
func cancelled(ctx context.Context, tool string) Result {
	return errorResult("%s: stopped: %v", tool, context.Cause(ctx))
}

// decodeArgs reads a call's arguments into params, a pointer to a struct
// whose json tags are the tool's parameters. Empty arguments and null read
// as {}. It returns a message for the model when the arguments do not fit:
// not an object, an unknown name, or a value of the wrong type.
func decodeArgs(tool string, args json.RawMessage, params any) (Result, bool) {
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	if trimmed[0] != '{' {
		return errorResult("%s: the arguments must be a JSON object with %s", tool, paramList(params)), false
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	err := dec.Decode(params)
	if err == nil && dec.More() {
		err = errors.New("text after the arguments object")
	}
	if err == nil {
		return Result{}, true
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		return errorResult("%s: argument %q must be %s, not a JSON %s", tool, typeErr.Field, kindName(typeErr.Type), typeErr.Value), false
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return errorResult("%s: unknown argument %s; the arguments are %s", tool, field, paramList(params)), false
	}
	return errorResult("%s: the arguments are not valid JSON (%v); send an object with %s", tool, err, paramList(params)), false
}

// paramList names the json fields of params, like "path, offset, limit".
func paramList(params any) string {
	t := reflect.TypeOf(params)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var names []string
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

// kindName names a Go type as a JSON type, for the model.
func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	}
	return "a " + t.String()
}
