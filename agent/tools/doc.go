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
// refusals.
//
// Effects. A Result also says what the call did, so that the caller never
// decodes a tool's arguments or names a tool to learn it: Read lists the
// file a read showed, Changed the files a call wrote (so a verification
// gate sees an edit), Command is a shell call's command line, Ran says
// that the command started, and ExitCode is its exit status, -1 when it
// did not run to its end. Paths are relative to the root with forward
// slashes.
//
// Arguments. Every integer argument has a "minimum" and a "maximum" in
// its schema, which the call grammar and the validator enforce; the tool
// checks them again and refuses a value outside them with a message
// naming the argument and the range (a 0 is an argument left out).
//
// Cancellation. Every Run takes ctx first. When ctx is done, a walk stops
// and a running command's whole process group is killed; the result says
// the call was stopped, and the caller sees ctx.Err() itself.
//
// The workspace. Every path is relative to the root (an absolute path
// inside it also works). "..", absolute paths elsewhere and symlinks that
// lead out are refused with a result the model can read; see
// Workspace.Resolve. A file is then opened once, beneath the root
// (agent/confined, os.Root), so a link swapped in after the check cannot
// lead out; FIFOs, devices and sockets are refused before anything is
// read; writes go through a temporary file and a rename, so a hard link
// to a file outside is never written in place; and what a tool reads is
// capped. Config sizes the results from the context window:
// ToolCapForWindow and ReadLinesForWindow give 1,536
// characters and 38 lines at 8K. Long output is cut by whole lines, head
// and tail, with a marker saying how many were cut (TruncateHeadTail).
//
// Writes that break the build. edit_file and write_file refuse a write
// that leaves a Go or JSON file that parsed unparseable (syntax.go), a
// Go file whose package clause or package-level names break its
// directory's package (gopackage.go), or a Go file that uses a name
// declared nowhere (gonames.go). Each refuses only what the write
// introduces, says what to send instead, and leaves the file as it was;
// Config.NoSyntaxCheck turns all three off.
//
// The shell. Each command passes a Policy, which parses it as bash
// (mvdan.cc/sh) and decides on the syntax tree. A command that does not
// parse never runs without asking, and with Yes it is refused. The deny
// list (DefaultDeny: sudo, rm -rf / or ~, a download fed to a shell, git
// push, ...) is checked on every command anywhere in the tree, the text of
// bash -c, eval and env -S included, and holds even with Yes. Otherwise
// Yes allows everything. Without Yes, a plain command line (words and
// quotes joined by &&, ||, ; or |, no expansions, no redirection but to
// /dev/null) runs without asking when every command in it only reads
// (Codex's rules). When the kernel sandbox confines the
// commands (Policy.Sandboxed, from Config.Sandbox and the system), tests
// and builds (DefaultAllow) and the user's Check command run without
// asking too. The rest goes to the Ask callback, which refuses when nil. A
// command runs as bash -c in the root under agent/sandbox: confined to
// writing in the workspace (its .git aside), and killed with everything it
// started on a timeout, on cancellation, and when it ends. The policy
// reads the command line; the sandbox is what contains an attacker.
//
// Concurrency. Workspace and Set are safe for concurrent use. Calls to
// read-only tools (Set.ReadOnly: read_file, grep, list_files) may run
// concurrently; edit_file, write_file and shell should run one at a time.
package tools
