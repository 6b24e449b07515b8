package loop_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/agent/window"
)

// conversationAgent is an agent that answers each task with "Done.", with
// context management on an 8K window when context is set.
func conversationAgent(t *testing.T, tasks int, context *window.Config, evs *events) *loop.Agent {
	t.Helper()
	ws, _ := tools.NewWorkspace(t.TempDir(), tools.Config{})
	replies := make([]string, tasks)
	for i := range replies {
		replies[i] = fmt.Sprintf("Done %d.", i)
	}
	a, err := loop.New(hermesScript(t, replies, nil), loop.Settings{ToolSet: tools.Default(), Workspace: ws, Sink: evs,
		NoContext: context == nil, Context: context, Guards: loop.Guards{NoForce: true}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestClear: after Clear the next task starts a conversation of its own,
// and the history events rebuild that conversation alone, as a continued
// session does.
func TestClear(t *testing.T) {
	var evs events
	a := conversationAgent(t, 3, nil, &evs)
	for _, task := range []string{"What is in a?", "What is in b?"} {
		if out := a.Run(context.Background(), task); out.Kind != loop.Done {
			t.Fatalf("Run(%q): %s, want done", task, out)
		}
	}
	if err := a.Clear(); err != nil {
		t.Fatal(err)
	}
	if h := a.History(); len(h) != 0 {
		t.Fatalf("History() after Clear holds %d messages, want none", len(h))
	}
	if got, err := transcript.Conversation(evs); err != nil || len(got) != 0 {
		t.Fatalf("Conversation(events) after Clear = %d messages, %v; want none", len(got), err)
	}
	if out := a.Run(context.Background(), "What is in c?"); out.Kind != loop.Done {
		t.Fatalf("Run after Clear: %s, want done", out)
	}
	h := a.History()
	if len(h) != 2 || h[0].Content != "What is in c?" {
		t.Fatalf("History() after Clear and a task = %+v, want that task and its answer", h)
	}
	got, err := transcript.Conversation(evs)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(h, got); d != "" {
		t.Errorf("Conversation(events) differs from the agent's history (-agent +events):\n%s", d)
	}
}

// TestCompactBetweenTasks: Compact summarizes the old tasks now, frees
// tokens, says so in the transcript, and the history events follow; a
// summary longer than what it replaces is not kept; with context
// management off it is ErrNoContext.
func TestCompactBetweenTasks(t *testing.T) {
	var evs events
	summaries := 0
	summarize := func(ctx context.Context, prompt string) (string, error) {
		summaries++
		return "## Task\nAnswer about the notes.\n## Progress\nAnswered three.", nil
	}
	a := conversationAgent(t, 4, &window.Config{Window: 8192, Summarize: summarize}, &evs)
	for i := range 4 {
		task := fmt.Sprintf("What does note %d say? %s", i, strings.Repeat("The note goes on at length. ", 140))
		if out := a.Run(context.Background(), task); out.Kind != loop.Done || out.Compactions > 0 {
			t.Fatalf("task %d: %s (%d compactions), want done below the trigger", i, out, out.Compactions)
		}
	}
	before := len(a.History())
	c, err := a.Compact(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c.Removed == 0 || c.After >= c.Before || summaries != 1 {
		t.Fatalf("Compact = %+v after %d summaries, want old messages summarized and tokens freed", c, summaries)
	}
	if n := len(a.History()); n != before-c.Removed+1 {
		t.Errorf("History() holds %d messages after Compact, want %d - %d + the summary", n, before, c.Removed)
	}
	if len(evs.kinds(transcript.KindCompact)) != 1 {
		t.Errorf("%d compact events, want 1", len(evs.kinds(transcript.KindCompact)))
	}
	got, err := transcript.Conversation(evs)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a.History(), got); d != "" {
		t.Errorf("Conversation(events) differs from the compacted history (-agent +events):\n%s", d)
	}

	var evs2 events
	long := func(ctx context.Context, prompt string) (string, error) {
		return strings.Repeat("A summary that says too much. ", 2000), nil
	}
	b := conversationAgent(t, 4, &window.Config{Window: 8192, Summarize: long}, &evs2)
	for i := range 4 {
		b.Run(context.Background(), fmt.Sprintf("What does note %d say? %s", i, strings.Repeat("The note goes on at length. ", 140)))
	}
	kept := b.History()
	if c, err := b.Compact(context.Background()); err != nil || c.Removed != 0 || c.After != c.Before {
		t.Errorf("Compact with a summary longer than the turns = %+v, %v; want nothing changed", c, err)
	}
	if d := cmp.Diff(kept, b.History()); d != "" || len(evs2.kinds(transcript.KindCompact)) != 0 {
		t.Errorf("a compaction that freed nothing was kept (%d compact events; -before +after):\n%s", len(evs2.kinds(transcript.KindCompact)), d)
	}

	off := conversationAgent(t, 1, nil, &events{})
	if _, err := off.Compact(context.Background()); !errors.Is(err, loop.ErrNoContext) {
		t.Errorf("Compact without context management = %v, want ErrNoContext", err)
	}
}

// TestAside: an aside goes into the next task's message, once, before
// the task; the task event and the question rule see the task alone.
func TestAside(t *testing.T) {
	var evs events
	a := conversationAgent(t, 2, nil, &evs)
	a.Aside("The user took back the last task's file changes: a.txt was removed.")
	for _, task := range []string{"What is in a?", "What is in b?"} {
		if out := a.Run(context.Background(), task); out.Kind != loop.Done {
			t.Fatalf("Run(%q): %s, want done", task, out)
		}
	}
	h := a.History()
	if want := "The user took back the last task's file changes: a.txt was removed.\n\nWhat is in a?"; h[0].Content != want {
		t.Errorf("the first task's message = %q, want %q", h[0].Content, want)
	}
	if h[2].Content != "What is in b?" {
		t.Errorf("the second task's message = %q, want the task alone", h[2].Content)
	}
	tasks := evs.kinds(transcript.KindTask)
	reqs := evs.kinds(transcript.KindRequest)
	if tasks[0].Task != "What is in a?" || slices.Contains(reqs[0].Tools, "write_file") {
		t.Errorf("task event %q offering %v; want the task alone, a question without write_file", tasks[0].Task, reqs[0].Tools)
	}
}
