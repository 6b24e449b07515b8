package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/transcript"
)

var key = model.StateKey{Model: strings.Repeat("a", 64), Template: strings.Repeat("b", 64)}

func newStore(t *testing.T) *Store {
	t.Helper()
	st, err := Open(t.TempDir(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func newSession(t *testing.T, st *Store, at time.Time) *Session {
	t.Helper()
	s, err := st.New(at)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func testState(n int) model.KVState {
	st := model.KVState{Key: key, Tokens: make([]int32, n), Data: make([]byte, 100*n)}
	for i := range st.Tokens {
		st.Tokens[i] = int32(1000 + i)
	}
	for i := range st.Data {
		st.Data[i] = byte(i * 7)
	}
	return st
}

// TestStateRoundTrip: a saved state loads back whole, under its key.
func TestStateRoundTrip(t *testing.T) {
	s := newSession(t, newStore(t), time.Now())
	want := testState(50)
	if err := s.SaveState(want, 5); err != nil {
		t.Fatal(err)
	}
	got, h, err := s.LoadState(key)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" || h.Step != 5 || h.Tokens != 50 {
		t.Errorf("LoadState: step %d, %d tokens, differs (-want +got):\n%s", h.Step, h.Tokens, d)
	}
	if info, err := os.Stat(s.StatePath()); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("state file mode %v (%v), want 0600", info.Mode(), err)
	}
}

// TestBadStates: a state that does not match or is not whole is refused
// with the reason, before anything reads its blob as a state.
func TestBadStates(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, path string, file []byte)
		key    model.StateKey
		want   error
	}{
		{"another model", nil, model.StateKey{Model: strings.Repeat("c", 64), Template: key.Template}, ErrOtherModel},
		{"another template", nil, model.StateKey{Model: key.Model, Template: "x"}, ErrOtherTemplate},
		{"truncated", func(t *testing.T, path string, file []byte) { write(t, path, file[:len(file)-10]) }, key, ErrCorrupt},
		{"cut in the header", func(t *testing.T, path string, file []byte) { write(t, path, file[:30]) }, key, ErrCorrupt},
		{"empty", func(t *testing.T, path string, file []byte) { write(t, path, nil) }, key, ErrCorrupt},
		{"a byte flipped", func(t *testing.T, path string, file []byte) { file[len(file)-1] ^= 1; write(t, path, file) }, key, ErrCorrupt},
		{"a token changed", func(t *testing.T, path string, file []byte) {
			at := strings.IndexByte(string(file), '\n') + 1
			at += strings.IndexByte(string(file[at:]), '\n') + 1
			file[at]++
			write(t, path, file)
		}, key, ErrCorrupt},
		{"a header that claims more", func(t *testing.T, path string, file []byte) {
			write(t, path, []byte(strings.Replace(string(file), `"tokens":50`, `"tokens":16000000`, 1)))
		}, key, ErrCorrupt},
		{"an unknown header field", func(t *testing.T, path string, file []byte) {
			write(t, path, []byte(strings.Replace(string(file), `"tokens":50`, `"tokens":50,"x":1`, 1)))
		}, key, ErrCorrupt},
		{"garbage", func(t *testing.T, path string, file []byte) { write(t, path, []byte("PK\x03\x04 not a state")) }, key, ErrCorrupt},
		{"a symlink", func(t *testing.T, path string, file []byte) {
			other := filepath.Join(t.TempDir(), "elsewhere")
			write(t, other, file)
			os.Remove(path)
			if err := os.Symlink(other, path); err != nil {
				t.Fatal(err)
			}
		}, key, ErrCorrupt},
		{"a directory", func(t *testing.T, path string, file []byte) { os.Remove(path); os.Mkdir(path, 0o700) }, key, ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSession(t, newStore(t), time.Now())
			if err := s.SaveState(testState(50), 3); err != nil {
				t.Fatal(err)
			}
			if tt.damage != nil {
				file, err := os.ReadFile(s.StatePath())
				if err != nil {
					t.Fatal(err)
				}
				tt.damage(t, s.StatePath(), file)
			}
			_, _, err := s.LoadState(tt.key)
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), s.StatePath()) {
				t.Errorf("LoadState = %v, want %v naming the file", err, tt.want)
			}
		})
	}
}

// TestStateCap: a state larger than the cap is neither written nor read.
func TestStateCap(t *testing.T) {
	st := newStore(t)
	s := newSession(t, st, time.Now())
	if err := s.SaveState(testState(50), 1); err != nil {
		t.Fatal(err)
	}
	st.Cap = 1000
	if err := s.SaveState(testState(50), 2); !errors.Is(err, ErrTooLarge) {
		t.Errorf("SaveState over the cap = %v, want ErrTooLarge", err)
	}
	if _, _, err := s.LoadState(key); !errors.Is(err, ErrTooLarge) {
		t.Errorf("LoadState over the cap = %v, want ErrTooLarge", err)
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestPruneOldestFirst: over the cap, the least recently written states
// go first, never the one kept; the transcripts stay.
func TestPruneOldestFirst(t *testing.T) {
	st := newStore(t)
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var ids []string
	var size int64
	for i := range 4 {
		s := newSession(t, st, base.Add(time.Duration(i)*time.Hour))
		if err := s.SaveState(testState(10), 1); err != nil {
			t.Fatal(err)
		}
		// Written in another order than the ids: the time of writing counts.
		at := base.Add(time.Duration([]int{2, 0, 3, 1}[i]) * time.Minute)
		if err := os.Chtimes(s.StatePath(), at, at); err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(s.Dir, "run.jsonl"), []byte("{}\n"))
		info, _ := os.Stat(s.StatePath())
		size = info.Size()
		ids = append(ids, s.ID)
	}
	st.Cap = 2*size + size/2
	removed, err := st.Prune(ids[1]) // the oldest state is kept
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{ids[3], ids[0]}, removed); d != "" {
		t.Errorf("Prune removed (-want +got):\n%s", d)
	}
	left, _ := st.States()
	var got []string
	for _, s := range left {
		got = append(got, s.ID)
	}
	if d := cmp.Diff([]string{ids[1], ids[2]}, got); d != "" {
		t.Errorf("states left (-want +got):\n%s", d)
	}
	for _, id := range ids {
		if _, err := os.Stat(filepath.Join(st.Dir, id, "run.jsonl")); err != nil {
			t.Errorf("session %s lost its transcript: %v", id, err)
		}
	}
}

// run writes a run's transcript into s: a task, its history, and an
// outcome unless outcome is "".
func run(t *testing.T, s *Session, at time.Time, task, outcome string, msgs ...chat.Message) {
	t.Helper()
	w, _, err := s.Create(at)
	if err != nil {
		t.Fatal(err)
	}
	w.Emit(transcript.Event{Time: at, Kind: transcript.KindSession, Session: s.ID})
	w.Emit(transcript.Event{Time: at, Kind: transcript.KindTask, Task: task})
	b, _ := json.Marshal(msgs)
	w.Emit(transcript.Event{Time: at, Kind: transcript.KindHistory, History: b})
	w.Emit(transcript.Event{Time: at.Add(time.Second), Kind: transcript.KindTiming, Step: 1})
	if outcome != "" {
		w.Emit(transcript.Event{Time: at.Add(2 * time.Second), Kind: transcript.KindOutcome, Outcome: outcome})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestFindAndResume: Last is the session whose last run started last,
// Find takes an id or a unique prefix, and Resume rebuilds the
// conversation with the last task and how it ended.
func TestFindAndResume(t *testing.T) {
	st := newStore(t)
	if _, err := st.Last(); !errors.Is(err, ErrNoSession) {
		t.Errorf("Last in an empty workspace = %v, want ErrNoSession", err)
	}
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a, b := newSession(t, st, base), newSession(t, st, base.Add(time.Minute))
	u1, a1 := chat.Message{Role: "user", Content: "one"}, chat.Message{Role: "assistant", Content: "did one"}
	u2 := chat.Message{Role: "user", Content: "two"}
	run(t, b, base.Add(time.Minute), "b's task", "done", chat.Message{Role: "user", Content: "b's task"})
	run(t, a, base, "one", "done", u1, a1)
	run(t, a, base.Add(time.Hour), "two", "", u1, a1, u2) // killed
	newSession(t, st, base.Add(2*time.Hour))              // no run yet
	last, err := st.Last()
	if err != nil || last.ID != a.ID {
		t.Fatalf("Last = %v, %v; want %s, whose last run is the newest", last, err, a.ID)
	}
	r, err := last.Resume()
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Resume{History: []chat.Message{u1, a1, u2}, Task: "two", Outcome: "", Runs: 2}, r); d != "" {
		t.Errorf("Resume differs (-want +got):\n%s", d)
	}
	if got, err := st.Find(b.ID[:len(b.ID)-2]); err != nil || got.ID != b.ID {
		t.Errorf("Find(prefix of %s) = %v, %v", b.ID, got, err)
	}
	if _, err := st.Find("2026"); err == nil || !strings.Contains(err.Error(), "3 sessions begin with it") {
		t.Errorf("Find(2026) = %v, want an error naming the 3 sessions", err)
	}
	if _, err := st.Find("nope"); !errors.Is(err, ErrNoSession) {
		t.Errorf("Find(nope) = %v, want ErrNoSession", err)
	}
	list, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range list {
		got = append(got, fmt.Sprintf("%s %q %s runs=%d steps=%d", in.ID, in.Task, in.Outcome, in.Runs, in.Steps))
	}
	want := []string{
		fmt.Sprintf(`%s "one" stopped runs=2 steps=2`, a.ID),
		fmt.Sprintf(`%s "b's task" done runs=1 steps=1`, b.ID),
		fmt.Sprintf(`%s "" %s runs=0 steps=0`, list[2].ID, ""), // made last, no run
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("List differs (-want +got):\n%s", d)
	}
}

// TestWorkspaceKey: one workspace, one store, however it is named; two
// workspaces, two.
func TestWorkspaceKey(t *testing.T) {
	root, ws := t.TempDir(), t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	a, _ := Open(root, ws)
	b, _ := Open(root, link)
	c, _ := Open(root, t.TempDir())
	if a.Dir != b.Dir || a.Dir == c.Dir || filepath.Dir(a.Dir) != root {
		t.Errorf("stores %s, %s (by a symlink), %s (another workspace); want the first two equal, under %s", a.Dir, b.Dir, c.Dir, root)
	}
}
