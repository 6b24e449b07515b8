package session

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/transcript"
)

// Create creates the transcript of a new run in the session, named by
// its UTC start time to the millisecond and a random suffix, so that the
// runs sort by time. Like transcript.Create, it never reuses a file.
func (s *Session) Create(now time.Time) (*transcript.Writer, string, error) {
	for range 10 {
		var suffix [4]byte
		rand.Read(suffix[:])
		path := filepath.Join(s.Dir, now.UTC().Format("20060102-150405.000")+"-"+hex.EncodeToString(suffix[:])+".jsonl")
		w, err := transcript.Create(path)
		if !errors.Is(err, fs.ErrExist) {
			return w, path, err
		}
	}
	return nil, "", &Error{"new run", s.Dir, errors.New("no free name after 10 tries")}
}

// Runs returns the paths of the session's transcripts, oldest first.
func (s *Session) Runs() ([]string, error) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, &Error{"runs", s.Dir, err}
	}
	var runs []string
	for _, e := range entries {
		if e.Type().IsRegular() && filepath.Ext(e.Name()) == ".jsonl" {
			runs = append(runs, filepath.Join(s.Dir, e.Name()))
		}
	}
	slices.Sort(runs)
	return runs, nil
}

// Events returns the events of the session's runs, each run's in
// order, oldest run first.
func (s *Session) Events() ([][]transcript.Event, error) {
	runs, err := s.Runs()
	if err != nil {
		return nil, err
	}
	var out [][]transcript.Event
	for _, path := range runs {
		f, err := os.Open(path)
		if err != nil {
			return nil, &Error{"read run", path, err}
		}
		events, err := transcript.Read(f)
		f.Close()
		if err != nil {
			return nil, &Error{"read run", path, err}
		}
		out = append(out, events)
	}
	return out, nil
}

// Resume is what a continued session starts from.
type Resume struct {
	// History is the conversation at the end of the last step recorded,
	// after the system prompt and the few-shot examples.
	History []chat.Message
	// Task is the last run's task, and Outcome how that run ended: ""
	// when it stopped before its outcome (killed).
	Task, Outcome string
	// Runs counts the session's runs so far.
	Runs int
}

// Resume rebuilds the session's conversation from its transcripts.
func (s *Session) Resume() (Resume, error) {
	runs, err := s.Events()
	if err != nil {
		return Resume{}, err
	}
	var r Resume
	var all []transcript.Event
	for _, events := range runs {
		all = append(all, events...)
		task, outcome, ok := lastTask(events)
		if ok {
			r.Task, r.Outcome = task, outcome
			r.Runs++
		}
	}
	if r.History, err = transcript.Conversation(all); err != nil {
		return Resume{}, &Error{"resume", s.Dir, err}
	}
	if r.Runs == 0 {
		return Resume{}, &Error{"resume", s.Dir, fmt.Errorf("%w: no run got as far as its task", ErrNoSession)}
	}
	return r, nil
}

// lastTask is a run's last task and its outcome ("" when the run stopped
// before one); ok is false for a run that never got to a task.
func lastTask(events []transcript.Event) (task, outcome string, ok bool) {
	for _, e := range events {
		switch e.Kind {
		case transcript.KindTask:
			task, outcome, ok = e.Task, "", true
		case transcript.KindOutcome:
			outcome = e.Outcome
		}
	}
	return task, outcome, ok
}
