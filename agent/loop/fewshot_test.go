package loop_test

import (
	"context"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/fewshot"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
)

// TestFewShotCopy: the examples sit between the system prompt and the
// task in every request, never in the history; a call that copies an
// example's path does not run and goes back with the copy named, and the
// corrected call runs.
func TestFewShotCopy(t *testing.T) {
	dir := copyFixture(t)
	copied := call(`{"name": "read_file", "arguments": {"path": "example/build.gradle"}}`)
	script := hermesScript(t, []string{copied, readCalc, "calc.go sums the prices."}, nil)
	ws, err := tools.NewWorkspace(dir, tools.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var evs events
	shots := fewshot.Default()
	a, err := loop.New(script, loop.Settings{ToolSet: tools.Default(), Workspace: ws, Sink: &evs, FewShot: shots, NoContext: true})
	if err != nil {
		t.Fatal(err)
	}
	out := a.Run(context.Background(), "What does calc.go do?")
	if out.Kind != loop.Done || out.Retries != 1 || out.Calls != 1 {
		t.Fatalf("outcome %s (%d retries, %d calls), want done after one retry and one call", out, out.Retries, out.Calls)
	}
	rejected := evs.kinds(transcript.KindRejected)
	if len(rejected) != 1 || rejected[0].Reason != "copied" {
		t.Fatalf("rejections %+v, want one copied", rejected)
	}
	h := a.History()
	if h[0].Role != "user" || h[0].Content != "What does calc.go do?" {
		t.Errorf("the history starts with %+v, want the task (the examples stay out of it)", h[0])
	}
	if msg := h[2].Content; !strings.Contains(msg, `path "example/build.gradle" comes from an example`) {
		t.Errorf("the copied call's result: %q", msg)
	}
	// system + 4 messages per example + the history of the request.
	req := evs.kinds(transcript.KindRequest)
	if want := 1 + 4*len(shots) + 1; req[0].Messages != want {
		t.Errorf("the first request has %d messages, want %d", req[0].Messages, want)
	}
}
