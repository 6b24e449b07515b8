package session

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/loopagent/loop/agent/model"
)

// Saver saves a model's KV state into a session at the end of each step:
// Step takes the state (a copy) at once and writes it in the background
// while the next step runs. A state still waiting when a newer one comes
// is dropped. It is safe for use by one goroutine calling Step and Close.
type Saver struct {
	s     *Session
	m     model.StateKeeper
	queue chan job
	done  chan struct{}

	mu    sync.Mutex
	notes []string
	saved int // states written
}

type job struct {
	st   model.KVState
	step int
}

// NewSaver starts saving m's states into s.
func NewSaver(s *Session, m model.StateKeeper) *Saver {
	sv := &Saver{s: s, m: m, queue: make(chan job, 1), done: make(chan struct{})}
	go sv.write()
	return sv
}

// Step saves the state at the end of step.
func (sv *Saver) Step(step int) {
	st, err := sv.m.SaveState()
	if err != nil {
		sv.note(fmt.Sprintf("KV state of step %d not saved: %v", step, err))
		return
	}
	if len(st.Tokens) == 0 {
		return
	}
	select {
	case <-sv.queue: // a newer state replaces one not yet written
	default:
	}
	sv.queue <- job{st, step}
}

func (sv *Saver) write() {
	defer close(sv.done)
	for j := range sv.queue {
		if err := sv.s.SaveState(j.st, j.step); err != nil {
			sv.note(fmt.Sprintf("KV state of step %d not saved: %v", j.step, err))
			continue
		}
		sv.mu.Lock()
		sv.saved++
		sv.mu.Unlock()
		removed, err := sv.s.store.Prune(sv.s.ID)
		if err != nil {
			sv.note(err.Error())
		}
		if len(removed) > 0 {
			sv.note(fmt.Sprintf("removed the KV states of %d older sessions to stay under the cap of %d MiB: %s",
				len(removed), sv.s.store.cap()>>20, strings.Join(removed, ", ")))
		}
	}
}

func (sv *Saver) note(s string) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if !slices.Contains(sv.notes, s) {
		sv.notes = append(sv.notes, s)
	}
}

// Close waits for the last write and returns what the user should hear:
// states that could not be saved, states removed for the cap.
func (sv *Saver) Close() (notes []string, saved int) {
	close(sv.queue)
	<-sv.done
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.notes, sv.saved
}
