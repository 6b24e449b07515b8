package transcript

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
)

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	events := []Event{
		{Time: at, Kind: KindTask, Task: "fix the test", Workspace: "/tmp/ws"},
		{Time: at, Kind: KindReply, Step: 1, Text: "<tool_call>\n{\"name\": \"read_file\"}\n</tool_call>", FinishReason: "tool_calls"},
		{Time: at, Kind: KindResult, Step: 1, Call: &chat.ToolCall{ID: "c1", Type: "function", Function: chat.FunctionCall{Name: "read_file", Arguments: `{"path":"a.go"}`}}, Result: "1| package a"},
		{Time: at, Kind: KindReply, Step: 2, Text: "Done.", FinishReason: "stop"},
		{Time: at, Kind: KindOutcome, Outcome: "done"},
	}
	for _, e := range events {
		w.Emit(e)
	}
	// Synced after each event: the file holds them before Close.
	data, err := os.ReadFile(path)
	if err != nil || strings.Count(string(data), "\n") != len(events) {
		t.Fatalf("before Close the file has %d lines (%v), want %d", strings.Count(string(data), "\n"), err, len(events))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(events, got); d != "" {
		t.Errorf("Read(Write(events)) differs (-want +got):\n%s", d)
	}
	texts, finish := Replies(got)
	if d := cmp.Diff([]string{events[1].Text, "Done."}, texts); d != "" || finish[1] != "stop" {
		t.Errorf("Replies: %s %v", d, finish)
	}
}

// TestCreateExclusive: Create refuses a file that exists, and a symlink
// even to nowhere, so that two runs never write one file.
func TestCreateExclusive(t *testing.T) {
	dir := t.TempDir()
	existing, link := filepath.Join(dir, "old.jsonl"), filepath.Join(dir, "link.jsonl")
	os.WriteFile(existing, []byte(`{"kind":"task","task":"old"}`+"\n"), 0o644)
	os.Symlink(filepath.Join(dir, "nowhere.jsonl"), link)
	tests := []struct {
		name, path string
	}{
		{"existing file", existing},
		{"dangling symlink", link},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Create(tt.path)
			if err == nil {
				w.Close()
			}
			if !errors.Is(err, fs.ErrExist) {
				t.Errorf("Create(%s) = %v, want an error wrapping fs.ErrExist", tt.name, err)
			}
		})
	}
	if b, _ := os.ReadFile(existing); string(b) != `{"kind":"task","task":"old"}`+"\n" {
		t.Errorf("the existing file changed: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere.jsonl")); err == nil {
		t.Errorf("Create wrote through the dangling symlink")
	}
}

// TestReadCutLine reads a transcript whose last line a crash cut: the
// events before it come back; a bad line in the middle is an error.
func TestReadCutLine(t *testing.T) {
	good := `{"kind":"task","task":"x","time":"2026-12-01T10:00:00Z"}` + "\n"
	got, err := Read(strings.NewReader(good + `{"kind":"reply","te`))
	if err != nil || len(got) != 1 {
		t.Errorf("Read(cut last line) = %d events, %v; want 1, nil", len(got), err)
	}
	if _, err := Read(strings.NewReader(good + "not json\n" + good)); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("Read(bad middle line) = %v, want an error naming line 2", err)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(`{"kind":"task"}` + "\n" + `{"kind":"reply","text":"a"}`)
	f.Add("\n\n{")
	f.Fuzz(func(t *testing.T, s string) {
		Read(strings.NewReader(s))
	})
}
