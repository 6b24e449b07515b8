package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/google/go-cmp/cmp"

	"github.com/loopagent/loop/agent/transcript"
)

// hostileReadme's first line sets the window title, clears the screen and
// paints a fake verdict, with 7-bit and 8-bit sequences, then turns the
// text right to left.
const hostileReadme = "\x1b]0;pwned\x07\x1b[2J\x1b[H\x1b[1;32mall tests passed\x1b[0m\u009b2J\u202e\r\n# Project\n"

// TestRunViewStripsEscapes runs a script whose tool results and answer
// hold escape sequences: the terminal view prints no control character,
// and the transcript keeps the bytes.
func TestRunViewStripsEscapes(t *testing.T) {
	ws, tmp := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "README.md"), []byte(hostileReadme), 0o644)
	answer := "\x1b]0;title\x07Done.\x1b[31m red\u009d0;x\u009c"
	script := writeScript(t, tmp,
		callReply("read_file", map[string]string{"path": "README.md"}),
		callReply("shell", map[string]string{"command": "cat README.md"}),
		answer)
	trans := filepath.Join(tmp, "run.jsonl")
	code, out, errOut := runLoop(t, "run", "--script", script, "--yes", "-C", ws, "--transcript", trans, "what is \x1b[2Jthis?")
	if code != 0 {
		t.Fatalf("loop run = exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for name, s := range map[string]string{"stdout": out, "stderr": errOut} {
		if i := strings.IndexFunc(s, isTerminalControl); i >= 0 {
			t.Errorf("%s holds %q at %d:\n%q", name, s[i:min(i+8, len(s))], i, s)
		}
	}
	if !strings.Contains(out, "Done. red") || !strings.Contains(out, "all tests passed") {
		t.Errorf("stdout lacks the stripped answer or README line:\n%s", out)
	}
	var results []string
	var reply string
	for _, e := range readEvents(t, trans) {
		switch e.Kind {
		case transcript.KindResult:
			results = append(results, e.Result)
		case transcript.KindReply:
			reply = e.Text
		}
	}
	if len(results) != 2 || !strings.Contains(results[0], "\x1b]0;pwned\x07") || !strings.Contains(results[1], hostileReadme[:20]) {
		t.Errorf("the transcript's results lost the README's bytes: %q", results)
	}
	if reply != answer {
		t.Errorf("the transcript's last reply = %q, want %q", reply, answer)
	}
}

// isTerminalControl reports whether a terminal may obey r: a control but
// newline and tab, DEL, a C1 control, or a bidi override.
func isTerminalControl(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r >= 0x7F && r <= 0x9F || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}

// TestTermViewDeltas: a sequence cut between deltas is stripped whole, in
// the text, the reasoning and a call's arguments.
func TestTermViewDeltas(t *testing.T) {
	call := func(name, args string) callformat.Delta {
		return callformat.Delta{Call: &callformat.CallDelta{Name: name, Arguments: args}}
	}
	tests := []struct {
		name   string
		deltas []callformat.Delta
		want   string
	}{
		{"text", []callformat.Delta{{Content: "Do"}, {Content: "ne \x1b"}, {Content: "]0;ti"}, {Content: "tle\x07"}, {Content: "ok\x1b[3"}, {Content: "1m!"}}, "Done ok!"},
		{"text with a character cut", []callformat.Delta{{Content: "a \xe2\x86"}, {Content: "\x92 b\xc2"}, {Content: "\x9b2Jc"}}, "a → bc"},
		{"reasoning", []callformat.Delta{{Reasoning: "think\x1b"}, {Reasoning: "[2J hard"}}, "think hard"},
		{"call", []callformat.Delta{call("read\x1b[2J_file", ""), call("", "{\"path\": \"\x1b]0;"), call("", "x\x07a.go\"}")}, "→ read_file {\"path\": \"a.go\"}"},
		{"open sequence ended by the next event", []callformat.Delta{{Content: "text\x1b]0;no end"}}, "text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			v := &termView{w: &b}
			for _, d := range tt.deltas {
				v.delta(1, d)
			}
			v.Emit(transcript.Event{Kind: transcript.KindOutcome, Detail: "done"})
			if diff := cmp.Diff(tt.want+"\ndone\n", b.String()); diff != "" {
				t.Errorf("view of %+v differs (-want +got):\n%s", tt.deltas, diff)
			}
		})
	}
}

// TestTermViewEvents: results, notes, rejections and the outcome line are
// printed stripped.
func TestTermViewEvents(t *testing.T) {
	tests := []struct {
		name  string
		event transcript.Event
		want  string
	}{
		{"result", transcript.Event{Kind: transcript.KindResult, Result: hostileReadme}, "  ✓ all tests passed … (3 lines)\n"},
		{"error result", transcript.Event{Kind: transcript.KindResult, IsError: true, Result: "\x1b[2Jexit code 1"}, "  ✗ exit code 1\n"},
		{"note", transcript.Event{Kind: transcript.KindNote, Text: "see \x1b]8;;http://x\x07here"}, "  note: see here\n"},
		{"rejected", transcript.Event{Kind: transcript.KindRejected, Reason: "bad\x1b[1m", Text: "\u009b2Jreply"}, "  not run (bad): reply\n"},
		{"repair", transcript.Event{Kind: transcript.KindRepair, Reason: "json", Repairs: []string{"\x1bcquote"}}, "  repaired (json) [quote]\n"},
		{"outcome", transcript.Event{Kind: transcript.KindOutcome, Detail: "done: \x1b]0;x\x07answer"}, "done: answer\n"},
		{"long first line cut on a character", transcript.Event{Kind: transcript.KindResult, Result: strings.Repeat("a", 116) + "→→"}, "  ✓ " + strings.Repeat("a", 116) + "...\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			(&termView{w: &b}).Emit(tt.event)
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("view of %+v differs (-want +got):\n%s", tt.event, diff)
			}
		})
	}
}
