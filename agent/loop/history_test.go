package loop_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
)

// TestHistoryEvents: the history events of a run rebuild the agent's
// conversation exactly, also after pruned retries replaced messages, and
// a new agent seeded with it continues where the first stopped: its
// first request sends the same history, and OnStepEnd hears each step.
func TestHistoryEvents(t *testing.T) {
	ws, _ := tools.NewWorkspace(t.TempDir(), tools.Config{})
	set, err := tools.NewSet(fixedRead{})
	if err != nil {
		t.Fatal(err)
	}
	read := call(`{"name": "read_file", "arguments": {"path": "pom.xml"}}`)
	replies := []string{read, call(`{"name": "read_file", "arguments": {"path": 7}}`), read, read}
	var evs events
	a, err := loop.New(hermesScript(t, replies, nil), loop.Settings{ToolSet: set, Workspace: ws, Sink: &evs, NoContext: true, MaxSteps: 4,
		Guards: loop.Guards{PruneRetries: true, NoLoopGuard: true, NoForce: true}})
	if err != nil {
		t.Fatal(err)
	}
	if out := a.Run(context.Background(), "What is in pom.xml?"); out.Kind != loop.StepLimit || out.Retries != 1 {
		t.Fatalf("outcome %s, want the step limit after one retry", out)
	}
	var froms []int
	for _, e := range evs.kinds(transcript.KindHistory) {
		froms = append(froms, e.From)
	}
	// Step 2's bad call and its error (messages 3 and 4) are pruned at
	// step 3: its event starts again from message 3.
	if d := cmp.Diff([]int{0, 1, 3, 3, 5}, froms); d != "" {
		t.Errorf("history events start at (-want +got):\n%s", d)
	}
	got, err := transcript.Conversation(evs)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a.History(), got); d != "" {
		t.Fatalf("Conversation(events) differs from the agent's history (-agent +events):\n%s", d)
	}

	var evs2 events
	var steps []int
	b, err := loop.New(hermesScript(t, []string{"It declares the project."}, nil), loop.Settings{ToolSet: set, Workspace: ws, Sink: &evs2,
		NoContext: true, History: got, OnStepEnd: func(step int) { steps = append(steps, step) }, Guards: loop.Guards{NoForce: true}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a.Messages(), b.Messages()); d != "" {
		t.Errorf("the seeded agent's messages differ (-first +seeded):\n%s", d)
	}
	if out := b.Continue(context.Background(), "What is in pom.xml?"); out.Kind != loop.Done {
		t.Fatalf("Continue: %s, want done", out)
	}
	task := evs2.kinds(transcript.KindTask)
	if len(task) != 1 || task[0].Reason != "continued" || len(steps) != 1 {
		t.Errorf("task events %+v, steps heard %v; want one continued task and step 1", task, steps)
	}
	if reqs := evs2.kinds(transcript.KindRequest); len(reqs) != 1 || reqs[0].Messages != len(a.Messages()) {
		t.Errorf("the continued run's first request sends %d messages, want %d: the history as it stood", reqs[0].Messages, len(a.Messages()))
	}
}
