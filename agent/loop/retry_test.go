package loop_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
)

// TestSeedRetryHistory replays seed 000 Example 5 through the loop: a
// wrong argument name fixed on the first retry leaves 4 messages up to the
// valid call (question, failed attempt, its error, valid attempt), 2 when
// failed attempts are pruned once the valid call ran; three different
// mistakes with a retry budget of 2 give up with 7 (the question and three
// attempts with their errors). The error sent back is the seed's.
func TestSeedRetryHistory(t *testing.T) {
	readArgs := func(args string) string { return call(`{"name": "read_file", "arguments": ` + args + `}`) }
	ws, _ := tools.NewWorkspace(t.TempDir(), tools.Config{})
	set, err := tools.NewSet(fixedRead{})
	if err != nil {
		t.Fatal(err)
	}
	run := func(prune bool, replies ...string) (loop.Outcome, []chat.Message) {
		script := hermesScript(t, replies, nil)
		a, err := loop.New(script, loop.Settings{ToolSet: set, Workspace: ws,
			Guards: loop.Guards{Retries: 2, PruneRetries: prune, NoGate: true, NoForce: true}, NoContext: true})
		if err != nil {
			t.Fatal(err)
		}
		out := a.Run(context.Background(), "What is in pom.xml?")
		return out, a.History()
	}
	upToValid := func(h []chat.Message) int {
		for i, m := range h {
			if len(m.ToolCalls) > 0 && strings.Contains(m.ToolCalls[0].Function.Arguments, `"path"`) {
				return i + 1
			}
		}
		return -1
	}
	out, h := run(false, readArgs(`{"file": "pom.xml"}`), readArgs(`{"path": "pom.xml"}`), "It declares the project.")
	if out.Kind != loop.Done || upToValid(h) != 4 {
		t.Errorf("scenario 1: %s, %d messages up to the valid call, want 4", out, upToValid(h))
	}
	want := `Invalid arguments for read_file: missing required argument 'path'; unknown argument 'file'. Expected {"path": "<file path>"}. Call read_file again with corrected arguments.`
	if len(h) < 3 || h[2].Content != want {
		t.Errorf("error sent back:\n%q\nwant the seed's\n%q", h[2].Content, want)
	}
	out, h = run(true, readArgs(`{"file": "pom.xml"}`), readArgs(`{"path": "pom.xml"}`), "It declares the project.")
	if out.Kind != loop.Done || upToValid(h) != 2 {
		t.Errorf("scenario 1 pruned: %s, %d messages up to the valid call, want 2", out, upToValid(h))
	}
	out, h = run(false, readArgs(`{"file": "pom.xml"}`), readArgs(`{"paths": ["pom.xml"]}`), readArgs(`{"path": 7}`))
	if out.Kind != loop.BadReply || out.Reason != "args" || len(h) != 7 {
		t.Errorf("scenario 2: %s, %d messages, want bad reply (args) and 7", out, len(h))
	}
}

// fixedRead is a read_file whose one argument is a path and whose result
// is always the same text.
type fixedRead struct{}

func (fixedRead) Name() string        { return "read_file" }
func (fixedRead) Description() string { return "Read a file." }
func (fixedRead) ReadOnly() bool      { return true }
func (fixedRead) Schema() json.RawMessage {
	return json.RawMessage(`{"type": "object", "properties": {"path": {"type": "string", "description": "file path"}}, "required": ["path"]}`)
}

func (fixedRead) Run(context.Context, *tools.Workspace, json.RawMessage) (tools.Result, error) {
	return tools.Result{Content: "int total() { return 27; }"}, nil
}

// TestCutOffBudget: a reply cut by the token limit goes back with the
// limit it was cut at and the larger budget of the next reply, which
// doubles on each cut-off in a row up to eight times MaxTokens; after a
// usable reply the budget is MaxTokens again.
func TestCutOffBudget(t *testing.T) {
	cut := model.Reply{Text: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom", FinishReason: "length"}
	ok := model.Reply{Text: call(`{"name": "read_file", "arguments": {"path": "pom.xml"}}`)}
	script, err := model.NewScript("hermes", []model.Reply{cut, cut, cut, cut, ok, cut, {Text: "Done."}})
	if err != nil {
		t.Fatal(err)
	}
	ws, _ := tools.NewWorkspace(t.TempDir(), tools.Config{})
	set, err := tools.NewSet(fixedRead{})
	if err != nil {
		t.Fatal(err)
	}
	var evs events
	a, err := loop.New(script, loop.Settings{ToolSet: set, Workspace: ws, MaxTokens: 80, Sink: &evs, NoContext: true,
		Guards: loop.Guards{Retries: 9, NoGate: true, NoForce: true}})
	if err != nil {
		t.Fatal(err)
	}
	a.Run(context.Background(), "What is in pom.xml?")
	var budgets []int
	var notes []string
	for _, e := range evs {
		switch {
		case e.Kind == transcript.KindRequest:
			budgets = append(budgets, e.MaxTokens)
		case e.Kind == transcript.KindRejected:
			notes = append(notes, e.Text)
		}
	}
	if want := []int{80, 160, 320, 640, 640, 80, 160}; !slices.Equal(budgets, want) {
		t.Errorf("request budgets %v, want %v", budgets, want)
	}
	want := "Your reply was cut off at the limit of 160 tokens, so nothing ran. Write it again, shorter; the next reply may use 320 tokens."
	if len(notes) < 2 || notes[1] != want {
		t.Errorf("second cut-off's note: %q\nwant %q", notes, want)
	}
}

// TestRepeatedCallIDs: a model that writes its own ids (Mistral) and
// writes the same one on every step, or twice in one reply, still gets
// calls with ids of their own, each result paired to its call, and no
// error to correct.
func TestRepeatedCallIDs(t *testing.T) {
	read := `[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "pom.xml"}, "id": "a1B2c3D4e"}]`
	twice := `[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "a.xml"}, "id": "a1B2c3D4e"}, {"name": "read_file", "arguments": {"path": "b.xml"}, "id": "a1B2c3D4e"}]`
	script, err := model.NewScript("mistral", []model.Reply{{Text: read}, {Text: read}, {Text: twice}, {Text: "It declares the project."}})
	if err != nil {
		t.Fatal(err)
	}
	ws, _ := tools.NewWorkspace(t.TempDir(), tools.Config{})
	set, err := tools.NewSet(fixedRead{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := loop.New(script, loop.Settings{ToolSet: set, Workspace: ws, ParallelToolCalls: true, NoContext: true,
		Guards: loop.Guards{NoGate: true, NoForce: true, NoLoopGuard: true}})
	if err != nil {
		t.Fatal(err)
	}
	out := a.Run(context.Background(), "What is in pom.xml?")
	if out.Kind != loop.Done || out.Retries != 0 || out.Calls != 4 {
		t.Fatalf("outcome %s; want done, 4 calls, no retry", out)
	}
	ids := map[string]bool{}
	for _, m := range a.History() {
		for _, c := range m.ToolCalls {
			if ids[c.ID] || c.ID == "" {
				t.Errorf("call id %q again", c.ID)
			}
			ids[c.ID] = true
		}
		if m.Role == "tool" && !ids[m.ToolCallID] {
			t.Errorf("a result for %q, which no call before it has", m.ToolCallID)
		}
	}
}
