package session

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/loopagent/loop/agent/model"
)

// keeper is a model.StateKeeper whose state grows by a token a step.
type keeper struct {
	n   int
	err error
}

func (k *keeper) StateKey() (model.StateKey, error) { return key, nil }
func (k *keeper) SaveState() (model.KVState, error) {
	k.n++
	return testState(k.n), k.err
}
func (k *keeper) RestoreState(model.KVState) error { return nil }

// TestSaver: the state on disk after Close is the last step's, and the
// older sessions' states went to stay under the cap, with a note.
func TestSaver(t *testing.T) {
	st := newStore(t)
	old := newSession(t, st, time.Now().Add(-time.Hour))
	if err := old.SaveState(testState(40), 1); err != nil {
		t.Fatal(err)
	}
	st.Cap = 6000 // the new session's state, not both
	s := newSession(t, st, time.Now())
	sv := NewSaver(s, &keeper{})
	for step := 1; step <= 30; step++ {
		sv.Step(step)
	}
	notes, saved := sv.Close()
	_, h, err := s.LoadState(key)
	if err != nil || h.Step != 30 || saved < 1 {
		t.Fatalf("after Close: step %d (%v), %d saved; want step 30", h.Step, err, saved)
	}
	if _, _, err := old.LoadState(key); err == nil {
		t.Errorf("the older session's state is still there, over the cap")
	}
	if len(notes) != 1 || !strings.Contains(notes[0], old.ID) {
		t.Errorf("notes %q, want one naming %s", notes, old.ID)
	}

	sv = NewSaver(s, &keeper{err: errors.New("a subagent holds the cache")})
	sv.Step(1)
	sv.Step(2)
	if notes, saved := sv.Close(); saved != 0 || len(notes) != 2 || !strings.Contains(notes[0], "a subagent holds the cache") {
		t.Errorf("Close = %q, %d saved; want a note per failed step", notes, saved)
	}
}
