package loop_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/agent/window"
)

// recorder checks every request on its way to the model: valid pairs,
// and a prompt that fits the window with its reserve.
type recorder struct {
	model.Model
	t          *testing.T
	window     int
	requests   int
	largest    int
	summarized int
}

func (r *recorder) Complete(ctx context.Context, req model.Request) (*model.Response, error) {
	r.requests++
	if err := window.ValidatePairs(req.Messages); err != nil {
		r.t.Errorf("request %d: %v\n%s", r.requests, err, roles(req.Messages))
	}
	n := window.Estimate{}.Count(string(tools.Default().Definitions()))
	for _, m := range req.Messages {
		n += window.MessageTokens(window.Estimate{}, 4, m)
	}
	r.largest = max(r.largest, n)
	if n+window.ReserveFor(r.window) > r.window {
		r.t.Errorf("request %d: %d prompt tokens + reserve over the %d window", r.requests, n, r.window)
	}
	return r.Model.Complete(ctx, req)
}

// TestLongRun8K: a 30-step scripted session on an 8,192-token window
// reads big files and runs noisy commands; it finishes without an
// overflow or an orphan result, and compacts on the way.
func TestLongRun8K(t *testing.T) {
	dir := t.TempDir()
	var replies []string
	for i := range 29 {
		name := fmt.Sprintf("part%02d.txt", i%10)
		var c string
		switch i % 3 {
		case 0:
			c = fmt.Sprintf(`{"name": "read_file", "arguments": {"path": %q, "offset": %d}}`, name, 1+i)
		case 1:
			c = fmt.Sprintf(`{"name": "shell", "arguments": {"command": "seq %d %d"}}`, i, 3000+i)
		default:
			c = fmt.Sprintf(`{"name": "grep", "arguments": {"pattern": "line %d", "path": "."}}`, i)
		}
		replies = append(replies, call(c))
	}
	replies = append(replies, "The parts hold numbered lines.")
	for i := range 10 {
		var b strings.Builder
		for l := range 300 {
			fmt.Fprintf(&b, "line %d of part %d: some text to make the file long enough\n", l, i)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part%02d.txt", i)), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const win = 8192
	ws, err := tools.NewWorkspace(dir, tools.Config{Window: win, Policy: tools.Policy{Yes: true}})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Model: hermesScript(t, replies, nil), t: t, window: win}
	summarize := func(ctx context.Context, prompt string) (string, error) {
		rec.summarized++
		if !strings.Contains(prompt, "Files read") && !strings.Contains(prompt, "files") {
			t.Errorf("the summary prompt names no file lists:\n%s", prompt)
		}
		return "## Task\nRead the parts.\n## Progress\nRead several parts.", nil
	}
	var evs events
	a, err := loop.New(rec, loop.Settings{ToolSet: tools.Default(), Workspace: ws, Sink: &evs, MaxSteps: 40,
		Context: &window.Config{Window: win, Summarize: summarize}})
	if err != nil {
		t.Fatal(err)
	}
	out := a.Run(context.Background(), "What do the parts hold?")
	if out.Kind != loop.Done || out.Requests != 30 {
		t.Fatalf("outcome %s, want done after 30 requests", out)
	}
	if out.Compactions < 1 || rec.summarized < 1 {
		t.Errorf("%d compactions, %d summaries; want at least one", out.Compactions, rec.summarized)
	}
	if err := window.ValidatePairs(a.History()); err != nil {
		t.Errorf("final history: %v", err)
	}
	if h := a.History(); !strings.Contains(h[0].Content, "<summary>") {
		t.Errorf("the history does not start with the summary: %+v", h[0])
	}
	t.Logf("%s; largest prompt %d estimated tokens; %d compact events", out, rec.largest, len(evs.kinds(transcript.KindCompact)))
	for _, e := range evs.kinds(transcript.KindCompact) {
		t.Log(e.Detail)
	}
}

// overflowOnce refuses the first request past some length as the
// in-process client does when the prompt does not fit its context.
type overflowOnce struct {
	model.Model
	after int
	done  bool
}

func (o *overflowOnce) Complete(ctx context.Context, req model.Request) (*model.Response, error) {
	if !o.done && len(req.Messages) > o.after {
		o.done = true
		return &model.Response{}, fmt.Errorf("prefill: %w", model.ErrContextFull)
	}
	return o.Model.Complete(ctx, req)
}

// TestOverflowCompacts: a prompt the model refuses as too long is
// compacted and sent again, instead of ending the run.
func TestOverflowCompacts(t *testing.T) {
	dir := copyFixture(t)
	ws, err := tools.NewWorkspace(dir, tools.Config{})
	if err != nil {
		t.Fatal(err)
	}
	replies := []string{readCalc, call(`{"name": "grep", "arguments": {"pattern": "func", "path": "."}}`),
		call(`{"name": "list_files", "arguments": {"pattern": "*.go"}}`), "calc.go sums the prices."}
	m := &overflowOnce{Model: hermesScript(t, replies, nil), after: 6}
	a, err := loop.New(m, loop.Settings{ToolSet: tools.Default(), Workspace: ws,
		Context: &window.Config{Window: 32768, KeepRecent: 10}})
	if err != nil {
		t.Fatal(err)
	}
	out := a.Run(context.Background(), "What does calc.go do?")
	if out.Kind != loop.Done || out.Compactions != 1 {
		t.Fatalf("outcome %s with %d compactions, want done after one", out, out.Compactions)
	}
}

// roles lists the roles of msgs, with the call id of each result.
func roles(msgs []chat.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "%s%s ", m.Role, m.ToolCallID)
	}
	return b.String()
}
