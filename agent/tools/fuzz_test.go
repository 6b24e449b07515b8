package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
	"time"
)

// fuzzTool runs tool on arbitrary arguments in a small workspace: it must
// not panic, not fail as a harness, always say something, and report
// effects that agree with each other (checkEffects).
func fuzzTool(f *testing.F, tool Tool, cfg Config, seeds ...string) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Add(``)
	f.Add(`null`)
	f.Add(`[]`)
	f.Add(`{"path": 1}`)
	f.Add(`{"path": "a.txt"} trailing`)
	ws := newWorkspace(f, map[string]string{"a.txt": "alpha\nbeta\n", "sub/b.go": "package b\n"}, cfg)
	f.Fuzz(func(t *testing.T, args string) {
		r, err := tool.Run(context.Background(), ws, json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s.Run(%q): harness error %v", tool.Name(), args, err)
		}
		if r.Content == "" {
			t.Fatalf("%s.Run(%q): empty result", tool.Name(), args)
		}
		if msg := checkEffects(tool.Name(), r); msg != "" {
			t.Fatalf("%s.Run(%q) = %+v: %s", tool.Name(), args, r, msg)
		}
	})
}

// checkEffects says what is wrong with a result's effects, or "": files
// are named only by a call that succeeded, relative to the root with
// forward slashes; only a shell call names a command or runs one; a
// command that did not run has exit code -1.
func checkEffects(tool string, r Result) string {
	for _, f := range slices.Concat(r.Read, r.Changed) {
		if r.IsError || f == "" || path.IsAbs(f) || strings.Contains(f, `\`) || f != path.Clean(f) || f == ".." || strings.HasPrefix(f, "../") {
			return fmt.Sprintf("file %q named", f)
		}
	}
	switch {
	case tool != ShellName && (r.Command != "" || r.Ran || r.ExitCode != 0):
		return "a command reported by a tool that runs none"
	case r.Ran && r.Command == "":
		return "ran without a command"
	case !r.Ran && tool == ShellName && r.ExitCode != -1:
		return "exit code of a command that did not run"
	case r.Ran && !r.IsError && r.ExitCode < 0:
		return "a negative exit code of a command that ended"
	}
	return ""
}

func FuzzReadFileArgs(f *testing.F) {
	fuzzTool(f, ReadFile{}, Config{}, `{"path": "a.txt"}`, `{"path": "a.txt", "offset": 2, "limit": 1}`, `{"path": "../x"}`, `{"path": "a.txt", "offset": -5}`)
}

func FuzzEditFileArgs(f *testing.F) {
	fuzzTool(f, EditFile{}, Config{}, `{"path": "a.txt", "old_string": "alpha", "new_string": "gamma"}`,
		`{"path": "a.txt", "old_string": "1| alpha", "new_string": "1| x"}`, `{"path": "sub/b.go", "old_string": "package c", "new_string": "x"}`)
}

func FuzzWriteFileArgs(f *testing.F) {
	fuzzTool(f, WriteFile{}, Config{}, `{"path": "new/c.txt", "content": "x"}`, `{"path": "/etc/x", "content": "x"}`, `{"path": ".", "content": ""}`,
		`{"path": "sub/c.go", "content": "package b\n\nfunc F[T any](t T) T { return g(t) + y }\n\ntype S struct{ s S }\n"}`)
}

// FuzzShellArgs parses arguments and judges commands under a policy that
// runs only the safe read-only commands, sandboxed and within a second.
func FuzzShellArgs(f *testing.F) {
	fuzzTool(f, Shell{}, Config{Policy: Policy{Allow: []string{}}, ShellTimeout: time.Second, MaxShellTimeout: time.Second}, `{"command": "go test ./..."}`,
		`{"command": "sudo rm -rf /", "timeout": 5}`, `{"command": "a | b && c $(d) > e"}`, `{"timeout": 1.5}`,
		`{"command": "ls", "timeout": 2183000000000000}`, `{"command": "ls", "timeout": 1}`)
}

func FuzzGrepArgs(f *testing.F) {
	fuzzTool(f, Grep{}, Config{}, `{"pattern": "alpha"}`, `{"pattern": "(", "path": "sub"}`, `{"pattern": "a", "path": "../"}`)
}

func FuzzListFilesArgs(f *testing.F) {
	fuzzTool(f, ListFiles{}, Config{}, `{"pattern": "**/*.go"}`, `{"pattern": "[z"}`, `{"pattern": "../*"}`, `{"pattern": "sub"}`)
}

// FuzzPolicy judges arbitrary command lines: no panic, and a denied
// command stays denied with Yes.
func FuzzPolicy(f *testing.F) {
	for _, s := range []string{"go test ./...", "sudo ls", `echo "$(a 'b' \"c\")" | d`, "rm -rf -- /", "a &>/dev/null", "x <<< y", "`", "$(", "'", `"`, "\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, command string) {
		d, err := Policy{}.Decide(context.Background(), command)
		if err != nil {
			t.Fatal(err)
		}
		y, _ := Policy{Yes: true}.Decide(context.Background(), command)
		if strings.HasPrefix(d.Reason, "deny list") && y.Allowed {
			t.Errorf("Decide(%q): denied, but allowed with Yes", command)
		}
	})
}

// FuzzTruncateHeadTail checks that a cut keeps the first line's start,
// never shows more than head+tail lines and a marker, and leaves a text
// that fits alone.
func FuzzTruncateHeadTail(f *testing.F) {
	f.Add(seedLog(), 2, 2, 0)
	f.Add("a\nb\nc", 1, 1, 3)
	f.Add("ééé\n", 1, 0, 2)
	f.Fuzz(func(t *testing.T, text string, head, tail, maxChars int) {
		head, tail, maxChars = head%50, tail%50, maxChars%5000
		got := TruncateHeadTail(text, head, tail, maxChars)
		lines := splitLines(text)
		if len(lines) <= max(head, 0)+max(tail, 0) && (maxChars <= 0 || len(text) <= maxChars) {
			if got != text {
				t.Fatalf("TruncateHeadTail(%q, %d, %d, %d) = %q, want it unchanged", text, head, tail, maxChars, got)
			}
			return
		}
		if n := len(splitLines(got)); head >= 0 && tail >= 0 && n > head+tail+1 {
			t.Fatalf("TruncateHeadTail(%q, %d, %d, %d) has %d lines", text, head, tail, maxChars, n)
		}
	})
}

func FuzzMatchGlob(f *testing.F) {
	f.Add("**/*.go", "a/b/c.go")
	f.Add("a/**/**/[b-", "a/x")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		matchGlob(pattern, name)
		validGlob(pattern)
	})
}
