// Package tools is what a coding agent's model can do to a workspace:
// read_file, edit_file, write_file, shell, grep and list_files. It knows
// nothing of models, templates or call formats; the agent loop parses a
// call, validates its arguments against the tool's schema, and hands the
// name and the arguments here.
//
// A Tool is data plus one function: a name, a description (embedded from
// the tool's .md file), a JSON Schema of flat string and integer
// arguments, whether it is read-only, and Run. A Set holds the tools in a
// fixed order, gives their OpenAI definitions (all, or the few a step
// needs), and runs a call by name:
//
//	ws, err := tools.NewWorkspace(dir, tools.Config{Window: 8192})
//	set := tools.Default()
//	req.Tools = set.Definitions("read_file", "edit_file", "shell")
//	...
//	res, err := set.Run(ctx, ws, call.Name, call.Arguments)
//	if err != nil {
//		return err // the harness failed, not the tool
//	}
//	history = append(history, toolMessage(call.ID, res.Content))
//
// Results and errors. A refusal, bad arguments, a missing file or a
// command that timed out is a Result with IsError set and a Content that
// tells the model what went wrong and what to send instead; the run goes
// on. Run returns a Go error only when the harness itself fails (bash
// cannot start, the Ask callback fails). Errors are *Error values with an
// Op, a Path and a cause; ErrOutside and ErrBrokenLink are the path
// refusals. Result.ExitCode is a shell command's exit status, -1 when it
// did not run to its end; Result.Changed lists the files a call wrote, so
// a verification gate can see that an edit happened.
//
// Cancellation. Every Run takes ctx first. When ctx is done, a walk stops
// and a running command's whole process group is killed; the result says
// the call was stopped, and the caller sees ctx.Err() itself.
//
// The workspace. Every path is relative to the root (an absolute path
// inside it also works). "..", absolute paths elsewhere and symlinks that
// lead out are refused with a result the model can read; see
// Workspace.Resolve. Config sizes the results from the context window as
// seed 002 Example 13 does: ToolCapForWindow and ReadLinesForWindow give
// 1,536 characters and 38 lines at 8K. Long output is cut by whole lines,
// head and tail, with a marker saying how many were cut (TruncateHeadTail).
//
// The shell. Each command passes a Policy first: a deny list that always
// holds, an allow list of prefixes that run without asking (tests, builds
// and reading commands; DefaultAllow), and an Ask callback for the rest,
// which refuses when nil; Yes allows all but the denied. A command runs as
// bash -c in the root, in a process group of its own that is killed on a
// timeout, on cancellation, and when the command ends.
//
// Concurrency. Workspace and Set are safe for concurrent use. Calls to
// read-only tools (Set.ReadOnly: read_file, grep, list_files) may run
// concurrently; edit_file, write_file and shell should run one at a time.
package tools
