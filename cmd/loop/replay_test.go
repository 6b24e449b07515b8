package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayRefusesTwoRuns: a transcript that holds the events of two runs
// (written one after the other, interleaved as two runs sharing a file
// would, or an interactive session's two tasks) is refused with a message
// naming the file; one run's transcript replays.
func TestReplayRefusesTwoRuns(t *testing.T) {
	ws, tmp := t.TempDir(), t.TempDir()
	script := writeScript(t, tmp, "Done.")
	runOnce := func(task string) []byte {
		t.Helper()
		trans := filepath.Join(tmp, task+".jsonl")
		if code, out, errOut := runLoop(t, "run", "--script", script, "-C", ws, "--transcript", trans, task); code != 0 {
			t.Fatalf("loop run %s = exit %d\n%s%s", task, code, out, errOut)
		}
		b, err := os.ReadFile(trans)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first, second := runOnce("first"), runOnce("second")
	a, session := scriptAgent(t, "Done.", "Done.")
	if err := interactive(context.Background(), a, strings.NewReader("first\nsecond\n"), io.Discard); err != nil {
		t.Fatal(err)
	}
	sessionBytes, _ := os.ReadFile(session)
	tests := []struct {
		name     string
		content  []byte
		wantCode int
		want     string
	}{
		{"one run", first, 0, "done"},
		{"two runs one after the other", append(append([]byte{}, first...), second...), 1, "the events of more than one run (tasks: 2, outcomes: 2)"},
		{"two runs interleaved", interleave(first, second), 1, "the events of more than one run (tasks: 2, outcomes: 2)"},
		{"an interactive session", sessionBytes, 1, "the events of more than one run (tasks: 2, outcomes: 2), from an interactive session"},
		{"two tasks, one outcome", append(append([]byte{}, first...), taskLine(second)...), 1, "the events of more than one run (tasks: 2, outcomes: 1)"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(tmp, "case"+string(rune('a'+i))+".jsonl")
			os.WriteFile(path, tt.content, 0o644)
			code, out, errOut := runLoop(t, "replay", "-C", ws, "--transcript", path+".replay", path)
			if code != tt.wantCode || !strings.Contains(out+errOut, tt.want) {
				t.Errorf("loop replay %s = exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", tt.name, code, tt.wantCode, tt.want, out, errOut)
			}
			if tt.wantCode != 0 && !strings.Contains(errOut, "loop replay: "+path+": ") {
				t.Errorf("loop replay %s: the message does not name %s: %s", tt.name, path, errOut)
			}
		})
	}
}

// interleave alternates the lines of a and b, as two runs appending to one
// file at the same time wrote them.
func interleave(a, b []byte) []byte {
	la, lb := bytes.SplitAfter(a, []byte("\n")), bytes.SplitAfter(b, []byte("\n"))
	var out []byte
	for i := range max(len(la), len(lb)) {
		if i < len(la) {
			out = append(out, la[i]...)
		}
		if i < len(lb) {
			out = append(out, lb[i]...)
		}
	}
	return out
}

// taskLine is the task event's line of a transcript.
func taskLine(b []byte) []byte {
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if bytes.Contains(line, []byte(`"kind":"task"`)) {
			return line
		}
	}
	return nil
}
