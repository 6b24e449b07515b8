package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// FileWriter is a tool whose purpose is to write files (edit_file,
// write_file): a task that asks for no change is not offered it. The
// shell is not one: its commands are judged one by one.
type FileWriter interface {
	Tool
	WritesFiles()
}

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

// Result is what a call returns. Content is what the model reads; the
// other fields report what the call did, so that the agent loop never
// decodes a tool's arguments or names a tool to learn it.
type Result struct {
	// Content is the text the model reads, already cut to the
	// workspace's limits.
	Content string
	// IsError is set when the call did not do what it was asked: a
	// refusal, bad arguments, a missing file, a command that timed out.
	// A shell command that ran and exited non-zero is not an error of the
	// tool; its ExitCode says so.
	IsError bool
	// ExitCode is the exit status of a shell command that ran to its end,
	// or -1 when the command was refused, killed or did not start (see
	// Ran). Other tools leave it 0.
	ExitCode int
	// Changed lists the files the call wrote, relative to the workspace
	// root with forward slashes: the file of a successful edit_file or
	// write_file (a symlink's target when the path was a link). A call
	// that failed wrote nothing. A shell command may change files too;
	// they are not listed.
	Changed []string
	// Read lists the files whose content the call showed the model,
	// relative to the workspace root with forward slashes: the file of a
	// successful read_file (an empty file too; a symlink's target when the
	// path was a link). grep and list_files show parts of many files and
	// leave it empty.
	Read []string
	// Command is the command line of a shell call that passed its
	// argument checks, as the model wrote it: the command ran (Ran), the
	// policy refused it, or the call was stopped before it started.
	// Other tools, and a shell call with bad arguments, leave it empty.
	Command string
	// Ran reports that the shell command started. ExitCode is then its
	// exit status, or -1 when it was killed (a timeout, a cancelled
	// context); IsError is set only in that second case. Without Ran,
	// nothing ran and ExitCode is -1. Other tools leave it false.
	Ran bool
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
// whose json tags are the tool's parameters, and checks each integer
// against the "minimum" and "maximum" that schema, the tool's JSON Schema,
// gives it (see checkBounds). Empty arguments and null read as {}. It
// returns a message for the model when the arguments do not fit: not an
// object, an unknown name, a value of the wrong type, or an integer out
// of its range.
func decodeArgs(tool, schema string, args json.RawMessage, params any) (Result, bool) {
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
		return checkBounds(tool, schema, params)
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr) && typeErr.Field != "":
		if b, ok := schemaBounds(schema)[typeErr.Field]; ok && strings.HasPrefix(typeErr.Value, "number ") {
			// A fraction, or an integer past what an int holds.
			return b.refuse(tool, typeErr.Field, strings.TrimPrefix(typeErr.Value, "number ")), false
		}
		return errorResult("%s: argument %q must be %s, not a JSON %s", tool, typeErr.Field, kindName(typeErr.Type), typeErr.Value), false
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.TrimPrefix(err.Error(), "json: unknown field ")
		return errorResult("%s: unknown argument %s; the arguments are %s", tool, field, paramList(params)), false
	}
	return errorResult("%s: the arguments are not valid JSON (%v); send an object with %s", tool, err, paramList(params)), false
}

// bounds is the range of an integer argument, from the "minimum" and
// "maximum" of its schema: the same range the call grammar and the
// validator enforce, so that a model that writes past it, unconstrained,
// reads why instead of the tool overflowing a conversion.
type bounds struct {
	min, max int64
	optional bool // not in "required": leaving it out gives the default
}

// schemaBounds reads the bounds of a tool schema's integer properties, by
// name. A property without both keywords is not bounded here; a test
// requires them of every tool.
func schemaBounds(schema string) map[string]bounds {
	var s struct {
		Properties map[string]struct {
			Type    string `json:"type"`
			Minimum *int64 `json:"minimum"`
			Maximum *int64 `json:"maximum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal([]byte(schema), &s) != nil {
		return nil
	}
	out := map[string]bounds{}
	for name, p := range s.Properties {
		if p.Type == "integer" && p.Minimum != nil && p.Maximum != nil {
			out[name] = bounds{*p.Minimum, *p.Maximum, !slices.Contains(s.Required, name)}
		}
	}
	return out
}

// checkBounds checks the integer fields of params, a pointer to a
// decoded params struct, against schema. Zero, the value of an argument
// left out, is not checked: the tool reads it as its default.
func checkBounds(tool, schema string, params any) (Result, bool) {
	v := reflect.ValueOf(params).Elem()
	all := schemaBounds(schema)
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		b, ok := all[name]
		if !ok || !v.Field(i).CanInt() {
			continue
		}
		if n := v.Field(i).Int(); n != 0 && (n < b.min || n > b.max) {
			return b.refuse(tool, name, strconv.FormatInt(n, 10)), false
		}
	}
	return Result{}, true
}

// refuse is the message for a value out of b.
func (b bounds) refuse(tool, name, value string) Result {
	r := errorResult("%s: argument %q must be an integer from %d to %d, not %s", tool, name, b.min, b.max, value)
	if b.optional {
		r.Content += "; leave it out for the default"
	}
	return r
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
