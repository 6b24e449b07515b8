package window

import (
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/loopagent/loop/agent/chat"
)

// EffectKind is what a tool call does, as far as the context cares.
type EffectKind int

const (
	// Other calls leave their results alone.
	Other EffectKind = iota
	// Read reads a file: its result is stale once the file is edited or
	// read again.
	Read
	// Write changes a file.
	Write
	// Command runs a command: its output is stale once the same command
	// runs again (an older test log).
	Command
)

// Effect is a call's kind and its target: a path, or a command line.
type Effect struct {
	Kind   EffectKind
	Target string
}

// Classifier tells what a call does.
type Classifier func(call chat.FunctionCall) Effect

// DefaultClassify knows the usual tool names: read_file, read, view and cat
// read the file in "path" (or "file_path", "file", "filename");
// edit_file, write_file, edit, write, multiedit and str_replace write it;
// shell, bash, run and run_command run "command" (or "cmd").
func DefaultClassify(call chat.FunctionCall) Effect {
	var args map[string]any
	_ = json.Unmarshal([]byte(call.Arguments), &args)
	arg := func(keys ...string) string {
		for _, k := range keys {
			if s, ok := args[k].(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
	path := func(kind EffectKind) Effect {
		if p := arg("path", "file_path", "file", "filename"); p != "" {
			return Effect{kind, p}
		}
		return Effect{}
	}
	switch call.Name {
	case "read_file", "read", "view", "cat":
		return path(Read)
	case "edit_file", "write_file", "edit", "write", "multiedit", "str_replace":
		return path(Write)
	case "shell", "bash", "run", "run_command":
		if c := arg("command", "cmd"); c != "" {
			return Effect{Command, c}
		}
	}
	return Effect{}
}

// StaleStub is the text that replaces a stale result: short, and it says
// what was there and why it went. A read's stub names the file, a
// command's the command line; for a short name such as OrderService.java
// or mvn test, either is about 60 characters.
func StaleStub(e Effect, by Effect) string {
	if e.Kind == Command {
		return "[earlier output of `" + e.Target + "` removed; a newer run is below]"
	}
	if by.Kind == Write {
		return "[earlier read of " + e.Target + " removed; file was edited]"
	}
	return "[earlier read of " + e.Target + " removed; file read again]"
}

// StubStale replaces stale results with stubs: a read of a file that a
// later call edits or reads again, and the output of a command that runs
// again later. A stale result is also wrong information: after an edit
// the old content no longer exists, and a model that sees both versions
// may edit against the old one. The call stays, so the step is still on
// record. A stub longer than its result is not used. It returns a new
// slice and the number of results stubbed.
//
// Stubbing edits the middle of the history, which costs the prompt cache
// everything after the first stub: the manager does it when it compacts,
// not on every request.
func StubStale(msgs []chat.Message, classify Classifier) ([]chat.Message, int) {
	if classify == nil {
		classify = DefaultClassify
	}
	type call struct {
		id     string
		effect Effect
	}
	var calls []call
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			calls = append(calls, call{c.ID, classify(c.Function)})
		}
	}
	out := slices.Clone(msgs)
	n := 0
	for i, m := range out {
		if m.Role != "tool" {
			continue
		}
		k := slices.IndexFunc(calls, func(c call) bool { return c.id == m.ToolCallID })
		if k < 0 || calls[k].effect.Kind == Other || calls[k].effect.Kind == Write {
			continue
		}
		e := calls[k].effect
		for _, later := range calls[k+1:] {
			if supersedes(e, later.effect) {
				stub := StaleStub(e, later.effect)
				if utf8.RuneCountInString(stub) < utf8.RuneCountInString(m.Text()) {
					out[i].Content, out[i].Parts = stub, nil
					n++
				}
				break
			}
		}
	}
	return out, n
}

// supersedes reports whether a later call makes e's result stale.
func supersedes(e, later Effect) bool {
	if e.Kind == Command {
		return later.Kind == Command && later.Target == e.Target
	}
	return (later.Kind == Read || later.Kind == Write) && later.Target == e.Target
}

// FileLists are the files read and the files modified in a session. The
// manager carries them from one compaction to the next, so that repeated
// summaries never lose them (as Pi's details field does).
type FileLists struct {
	// Read are the files read and not modified, sorted.
	Read []string `json:"read"`
	// Modified are the files written, sorted.
	Modified []string `json:"modified"`
}

// Add records the effects of the calls in msgs.
func (f FileLists) Add(msgs []chat.Message, classify Classifier) FileLists {
	if classify == nil {
		classify = DefaultClassify
	}
	read, mod := slices.Clone(f.Read), slices.Clone(f.Modified)
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			switch e := classify(c.Function); e.Kind {
			case Read:
				read = append(read, e.Target)
			case Write:
				mod = append(mod, e.Target)
			}
		}
	}
	slices.Sort(mod)
	mod = slices.Compact(mod)
	read = slices.DeleteFunc(read, func(p string) bool { _, found := slices.BinarySearch(mod, p); return found })
	slices.Sort(read)
	return FileLists{Read: slices.Compact(read), Modified: mod}
}
