package loop

import (
	"encoding/json"
	"reflect"

	"github.com/loopagent/loop/agent/transcript"
)

// stepEnded records the conversation as the step left it, then lets the
// caller save what goes with it (Settings.OnStepEnd): the transcript then
// holds every message the saved state holds.
func (a *Agent) stepEnded() {
	a.recordHistory()
	if a.cfg.OnStepEnd != nil {
		a.cfg.OnStepEnd(a.step)
	}
}

// recordHistory emits a history event with the messages that changed
// since the last one: those added, or, after a compaction or pruned
// retries, everything from the first message that differs. An agent's
// first event holds the whole history, so that each transcript rebuilds
// the conversation alone (transcript.Conversation).
func (a *Agent) recordHistory() {
	h := a.History()
	from := 0
	for from < len(h) && from < len(a.recorded) && reflect.DeepEqual(h[from], a.recorded[from]) {
		from++
	}
	if a.recorded != nil && from == len(h) && from == len(a.recorded) {
		return
	}
	added, err := json.Marshal(h[from:])
	if err != nil {
		return // a message that does not marshal never reached the model either
	}
	a.emit(transcript.Event{Kind: transcript.KindHistory, From: from, History: added})
	a.recorded = h
}
