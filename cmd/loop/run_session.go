package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/session"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/spf13/pflag"
)

// sessionFlags make each run a session (agent/session): a new one, or,
// with --continue or --resume, an earlier one of the workspace whose
// conversation goes on, warm when its KV state still fits the model.
type sessionFlags struct {
	cont    bool
	resume  string
	noState bool
	capMiB  int

	store   *session.Store
	s       *session.Session
	resumed *session.Resume // nil for a new session
	file    *transcript.Writer
	path    string
	saver   *session.Saver
	keeper  model.StateKeeper
}

func (s *sessionFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&s.cont, "continue", false, "continue the last session of this workspace (its conversation, and its KV state on the same model); without a task, an unfinished task goes on")
	fs.StringVar(&s.resume, "resume", "", "continue the session with this id, or the one id that begins with it (loop sessions lists them)")
	fs.BoolVar(&s.noState, "no-kv-state", false, "neither restore nor save the model's KV state: a continued session starts cold")
	fs.IntVar(&s.capMiB, "session-cap", 0, "MiB the KV states of this workspace's sessions may take, the oldest removed first (0: 2048)")
}

// storeDir is the directory of the workspace's sessions ("" before open).
func (s *sessionFlags) storeDir() string {
	if s.store == nil {
		return ""
	}
	return s.store.Dir
}

// open finds the session to continue and reads its conversation, before
// a model loads.
func (s *sessionFlags) open(dir string) error {
	switch {
	case s.cont && s.resume != "":
		return usagef("--continue and --resume: give one")
	case s.capMiB < 0:
		return usagef("--session-cap %d: want 0 (2048) or more MiB", s.capMiB)
	}
	var err error
	if s.store, err = session.Open("", dir); err != nil {
		return err
	}
	s.store.Cap = int64(s.capMiB) << 20
	switch {
	case s.cont:
		s.s, err = s.store.Last()
	case s.resume != "":
		s.s, err = s.store.Find(s.resume)
	default:
		return nil
	}
	if err != nil {
		return err
	}
	r, err := s.s.Resume()
	if err != nil {
		return err
	}
	s.resumed = &r
	return nil
}

// wire makes the run part of its session: a new session unless one is
// continued, this run's transcript in it, the conversation to continue,
// and the KV state saved at the end of each step. An agent built without
// open (loop replay) is in no session.
func (s *sessionFlags) wire(set *loop.Settings, m model.Model, sinks *runSinks) error {
	if s.store == nil {
		return nil
	}
	var err error
	if s.s == nil {
		if s.s, err = s.store.New(time.Now()); err != nil {
			return err
		}
	}
	if s.file, s.path, err = s.s.Create(time.Now()); err != nil {
		return err
	}
	sinks.multi = append(sinks.multi, s.file)
	if s.resumed != nil {
		set.History = s.resumed.History
	}
	if k, ok := m.(model.StateKeeper); ok && !s.noState {
		s.keeper = k
		s.saver = session.NewSaver(s.s, k)
		set.OnStepEnd = s.saver.Step
	}
	return nil
}

// begin restores the KV state of a continued session and records the
// session in the transcript. It returns the task to continue when no
// task was given and the last run stopped before it was done.
func (s *sessionFlags) begin(sink transcript.Sink, task string, stderr io.Writer) (string, bool) {
	e := transcript.Event{Kind: transcript.KindSession, Session: s.s.ID, Detail: "new session"}
	if r := s.resumed; r != nil {
		e.Detail = fmt.Sprintf("continued after %d runs, %d messages", r.Runs, len(r.History))
		start := time.Now()
		e.Reason = s.restore()
		e.Ms = float64(time.Since(start).Microseconds()) / 1000
		fmt.Fprintf(stderr, "loop run: session %s: %s; %s\n", s.s.ID, e.Detail, e.Reason)
	}
	sink.Emit(e)
	if r := s.resumed; r != nil && task == "" && unfinished(r.Outcome) {
		return r.Task, true
	}
	return "", false
}

// restore puts the session's KV state in the model and says what came of
// it. A state that does not fit (another model or template, a damaged
// file, one the engine refuses) is ignored: the run starts cold.
func (s *sessionFlags) restore() string {
	switch {
	case s.noState:
		return "KV state not restored (--no-kv-state)"
	case s.keeper == nil:
		return "no KV state: the model keeps none"
	}
	key, err := s.keeper.StateKey()
	if err != nil {
		return "KV state ignored: " + err.Error()
	}
	st, h, err := s.s.LoadState(key)
	if errors.Is(err, fs.ErrNotExist) {
		return "no KV state saved: starting cold"
	}
	if err != nil {
		return "KV state ignored: " + err.Error()
	}
	if err := s.keeper.RestoreState(st); err != nil {
		return "KV state ignored: " + err.Error()
	}
	return fmt.Sprintf("KV state of %d tokens restored (step %d)", h.Tokens, h.Step)
}

// unfinished reports whether a run that ended so goes on by itself when
// its session continues without a task: it stopped before its end (""),
// at the step limit, cancelled or on an error.
func unfinished(outcome string) bool {
	switch loop.Kind(outcome) {
	case loop.Verified, loop.Done, loop.Unverified:
		return false
	}
	return true
}

// close waits for the last state, closes the session's transcript and
// says how to continue the session.
func (s *sessionFlags) close(stderr io.Writer) {
	if s.saver != nil {
		notes, _ := s.saver.Close()
		for _, n := range notes {
			fmt.Fprintf(stderr, "loop run: session %s: %s\n", s.s.ID, n)
		}
	}
	if s.file == nil {
		return
	}
	if err := s.file.Close(); err != nil {
		fmt.Fprintf(stderr, "loop run: session transcript %s: %v\n", s.path, err)
	}
	fmt.Fprintf(stderr, "session: %s (loop run --resume %s)\n", s.s.ID, s.s.ID)
}
