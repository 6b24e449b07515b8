package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// ShellName is the name of the shell tool.
const ShellName = "shell"

//go:embed shell.md
var shellDescription string

// ShellParams are the shell tool's arguments. Timeout is in seconds, from
// 1 to 600 (the schema's bounds, checked before anything runs); 0, the
// value of a timeout left out, means the workspace's ShellTimeout.
type ShellParams struct {
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// The timeout's maximum, 600 seconds, is MaxShellTimeout's default: a
// build or a test run that takes longer is not one a model should wait on.
const shellSchema = `{"type": "object", "properties": {
	"command": {"type": "string", "minLength": 1, "description": "The command line, for example go test ./..."},
	"timeout": {"type": "integer", "minimum": 1, "maximum": 600, "description": "Seconds before the command is killed (the default suits a test run)"}
}, "required": ["command"]}`

// pipeGrace is how long the shell tool waits for the output pipe to close
// after the command is gone: a process that left the process group may
// hold it open.
const pipeGrace = time.Second

// Shell is the shell tool. The workspace's Policy judges the command
// first; a refusal is a result that says why. The command runs as
// "bash -c COMMAND" in the workspace root, with stdin empty and
// GIT_PAGER=cat, PAGER=cat and GIT_TERMINAL_PROMPT=0 added to the
// environment, in a process group of its own.
//
// The result starts with "exit code N", then the output, stdout and
// stderr interleaved as written, cut by TruncateHeadTail to the
// workspace's HeadLines, TailLines and ResultChars. A timeout (the call's,
// 1 to 600 seconds capped at MaxShellTimeout, else ShellTimeout) or a
// cancelled ctx kills the whole process group, so a test's child
// processes die with it, and the result (IsError, ExitCode -1) says so.
// When the command ends, the processes it left in the background are
// killed too. The result's Command is the command line, and Ran says
// whether it started.
type Shell struct{}

func (Shell) Name() string            { return ShellName }
func (Shell) Description() string     { return strings.TrimSpace(shellDescription) }
func (Shell) Schema() json.RawMessage { return json.RawMessage(shellSchema) }
func (Shell) ReadOnly() bool          { return false }

// Run checks the arguments, then runs the command through runAllowed.
// The result names the command (Result.Command) once the arguments pass.
func (Shell) Run(ctx context.Context, ws *Workspace, args json.RawMessage) (Result, error) {
	var p ShellParams
	if r, ok := decodeArgs(ShellName, shellSchema, args, &p); !ok {
		r.ExitCode = -1
		return r, nil
	}
	if strings.TrimSpace(p.Command) == "" {
		return Result{Content: ShellName + ": command is empty", IsError: true, ExitCode: -1}, nil
	}
	r, err := runAllowed(ctx, ws, p)
	r.Command = p.Command
	return r, err
}

// runAllowed asks the policy about the command and runs it when allowed,
// within the call's timeout (capped at MaxShellTimeout) or ShellTimeout.
func runAllowed(ctx context.Context, ws *Workspace, p ShellParams) (Result, error) {
	d, err := ws.cfg.Policy.Decide(ctx, p.Command)
	if err != nil {
		return Result{}, err
	}
	if !d.Allowed {
		return refusal(ws, p.Command, d), nil
	}
	if ctx.Err() != nil {
		r := cancelled(ctx, ShellName)
		r.ExitCode = -1
		return r, nil
	}
	timeout := ws.cfg.ShellTimeout
	if p.Timeout > 0 { // at most 600: decodeArgs checked the schema's bounds
		timeout = min(time.Duration(p.Timeout)*time.Second, ws.cfg.MaxShellTimeout)
	}
	return runCommand(ctx, ws, p.Command, timeout)
}

// refusal tells the model why a command did not run and what would.
func refusal(ws *Workspace, command string, d Decision) Result {
	p := ws.cfg.Policy
	var msg string
	switch {
	case strings.HasPrefix(d.Reason, "deny list: "):
		msg = fmt.Sprintf("refused: %q matches the deny list (%s) and never runs; do not try it again", command, strings.TrimPrefix(d.Reason, "deny list: "))
	case d.Reason == "asked: no":
		msg = fmt.Sprintf("refused: the user did not allow %q; choose another way or ask the user", command)
	case d.Reason == reasonUnparsed:
		msg = fmt.Sprintf("refused: %q %s", command, reasonUnparsed)
	default:
		runs := "plain read-only commands (ls, cat, grep, git status/diff/log, ...; no $, backticks, redirection or assignments)"
		if p.Sandboxed {
			runs += "; tests and builds: " + strings.Join(p.AllowList(), ", ")
		}
		if p.Check != "" {
			runs += fmt.Sprintf("; the check command %q", p.Check)
		}
		msg = fmt.Sprintf("refused: %q needs the user's approval, which this run cannot ask for. What runs without approval: %s", command, runs)
	}
	return Result{Content: ShellName + ": " + msg, IsError: true, ExitCode: -1}
}
