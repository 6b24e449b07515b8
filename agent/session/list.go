package session

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/loopagent/loop/agent/transcript"
)

// Info sums up one session for `loop sessions`.
type Info struct {
	ID string `json:"id"`
	// Start is when its first run started, Last when its last event was.
	Start time.Time `json:"start"`
	Last  time.Time `json:"last"`
	// Task is its first task, Outcome how its last run ended ("stopped":
	// before its outcome, killed or still running).
	Task    string `json:"task"`
	Outcome string `json:"outcome"`
	// Runs and Steps count its runs and model requests.
	Runs  int `json:"runs"`
	Steps int `json:"steps"`
	// StateBytes is the size of its KV state (0: none), StateTokens the
	// tokens it holds; Bytes is all its files.
	StateBytes  int64 `json:"state_bytes"`
	StateTokens int   `json:"state_tokens"`
	Bytes       int64 `json:"bytes"`
}

// List sums up the workspace's sessions, the first started first. A session whose
// transcripts cannot be read is listed with what could be.
func (st *Store) List() ([]Info, error) {
	ids, err := st.IDs()
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, id := range ids {
		out = append(out, st.session(id).info())
	}
	// Ids made in the same second sort by their random suffix.
	slices.SortStableFunc(out, func(a, b Info) int { return a.Start.Compare(b.Start) })
	return out, nil
}

func (s *Session) info() Info {
	in := Info{ID: s.ID}
	runs, _ := s.Events()
	for _, events := range runs {
		if _, outcome, ok := lastTask(events); ok {
			in.Runs++
			in.Outcome = outcome
			if outcome == "" {
				in.Outcome = "stopped"
			}
		}
		for _, e := range events {
			switch e.Kind {
			case transcript.KindTask:
				if in.Task == "" {
					in.Task = e.Task
				}
			case transcript.KindTiming:
				in.Steps++
			}
			if in.Start.IsZero() {
				in.Start = e.Time
			}
			in.Last = e.Time
		}
	}
	if in.Start.IsZero() {
		// No run got as far as an event: the id says when it was made.
		in.Start, _ = time.Parse("20060102-150405", s.ID[:15])
		in.Last = in.Start
	}
	entries, _ := os.ReadDir(s.Dir)
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			in.Bytes += fi.Size()
		}
	}
	if fi, err := os.Lstat(s.StatePath()); err == nil && fi.Mode().IsRegular() {
		in.StateBytes = fi.Size()
		if h, err := s.stateHeader(); err == nil {
			in.StateTokens = h.Tokens
		}
	}
	return in
}

// stateHeader reads the header of the session's state.
func (s *Session) stateHeader() (StateHeader, error) {
	f, err := os.Open(filepath.Join(s.Dir, StateFile))
	if err != nil {
		return StateHeader{}, err
	}
	defer f.Close()
	h, _, err := readHeader(bufio.NewReaderSize(f, maxHeader+len(stateMagic)))
	return h, err
}
