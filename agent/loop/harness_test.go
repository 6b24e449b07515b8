package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/loopguard"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/internal/golden"
)

// seedTool is one tool of seed 000 Example 13's fake workspace: total()
// returns 27 until an edit replaces "27", and the tests pass only after it.
type seedTool struct {
	name, params string
	ws           *seedWorkspace
}

type seedWorkspace struct{ edited bool }

func (t seedTool) Name() string        { return t.name }
func (t seedTool) Description() string { return "The seed's " + t.name + ", on a fake workspace." }
func (t seedTool) ReadOnly() bool      { return t.name == "read_file" }
func (t seedTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type": "object", "properties": {` + t.params + `}, "required": [` + required(t.params) + `]}`)
}

func required(params string) string {
	var names []string
	for _, p := range strings.Split(params, "},") {
		name, _, _ := strings.Cut(strings.TrimSpace(p), ":")
		names = append(names, name)
	}
	return strings.Join(names, ", ")
}

func (t seedTool) Run(_ context.Context, _ *tools.Workspace, args json.RawMessage) (tools.Result, error) {
	var a map[string]string
	json.Unmarshal(args, &a)
	switch t.name {
	case "read_file":
		return tools.Result{Content: "int total() { return 27; }"}, nil
	case "edit_file":
		t.ws.edited = t.ws.edited || a["old_string"] == "27"
		return tools.Result{Content: "edited", Changed: []string{a["path"]}}, nil
	}
	if t.ws.edited {
		return tools.Result{Content: "exit 0"}, nil
	}
	return tools.Result{Content: "exit 1, expected 30 but was 27", ExitCode: 1}, nil
}

func seedTools(t *testing.T) *tools.Set {
	ws := &seedWorkspace{}
	str := `{"type": "string"}`
	set, err := tools.NewSet(
		seedTool{"read_file", `"path": ` + str, ws},
		seedTool{"edit_file", `"path": ` + str + `, "old_string": ` + str + `, "new_string": ` + str, ws},
		seedTool{"shell", `"command": ` + str, ws})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func call(json string) string { return "<tool_call>\n" + json + "\n</tool_call>" }

// The replies of seed 000 Example 13.
var (
	read = call(`{"name": "read_file", "arguments": {"path": "Order.java"}}`)
	edit = call(`{"name": "edit_file", "arguments": {"path": "Order.java", "old_string": "27", "new_string": "30"}}`)
	test = call(`{"name": "shell", "arguments": {"command": "mvn -q test"}}`)
	done = "Fixed: total() returns 30 and the tests pass."
)

type scenario struct {
	name      string
	replies   []string
	afterNote []string // what the model writes once it reads the loop note
}

// seedScenarios are the seven scenarios of seed 000 Example 13. The last
// one gets two more replies, which only a run that refuses the first
// answer reads: the model runs the tests when asked, then answers.
func seedScenarios() []scenario {
	return []scenario{
		{"clean run", []string{read, edit, test, done}, nil},
		{"trailing comma", []string{read, strings.Replace(edit, `"30"}`, `"30",}`, 1), test, done}, nil},
		{"single quotes", []string{read, edit, strings.ReplaceAll(test, `"`, `'`), done}, nil},
		{"wrong argument name", []string{read, strings.Replace(edit, `"path"`, `"file"`, 1), edit, test, done}, nil},
		{"cut-off call", []string{read, edit[:60], edit, test, done}, nil},
		{"repeats read_file", []string{read, read, read, read, read, read, read, read}, []string{edit, test, done}},
		{"answers before testing", []string{read, edit, done, test, done}, nil},
	}
}

// seedConfigs are the seed's four configurations and loop's fifth, each
// adding one technique.
func seedConfigs() []struct {
	name   string
	guards loop.Guards
} {
	off := loop.Guards{NoRepair: true, NoRecover: true, Retries: -1, NoLoopGuard: true, NoGate: true, NoForce: true}
	repair := off
	repair.NoRepair, repair.NoRecover = false, false
	retry := repair
	retry.Retries = 2
	lg := retry
	lg.NoLoopGuard = false
	verify := lg
	verify.NoGate = false
	return []struct {
		name   string
		guards loop.Guards
	}{{"raw", off}, {"+repair", repair}, {"+retry", retry}, {"+loop", lg}, {"+verify", verify}}
}

// hermesScript is a scripted model that answers in the Hermes format with
// replies, in order; once the loop guard has sent its note, it answers with
// afterNote instead (when afterNote is not nil).
func hermesScript(t *testing.T, replies, afterNote []string) *model.Script {
	t.Helper()
	rs := make([]model.Reply, len(replies))
	for i, r := range replies {
		rs[i] = model.Reply{Text: r}
	}
	var branches []model.Branch
	if afterNote != nil {
		b := model.Branch{When: loopguard.Note}
		for _, r := range afterNote {
			b.Replies = append(b.Replies, model.Reply{Text: r})
		}
		branches = append(branches, b)
	}
	script, err := model.NewScript("hermes", rs, branches...)
	if err != nil {
		t.Fatal(err)
	}
	return script
}

// runScenario runs one scenario through the real loop and reports it as
// the seed's harness does: PASS(requests) or FAIL:reason.
func runScenario(t *testing.T, sc scenario, g loop.Guards) string {
	script := hermesScript(t, sc.replies, sc.afterNote)
	ws, err := tools.NewWorkspace(t.TempDir(), tools.Config{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := loop.New(loop.Config{Model: script, Tools: seedTools(t), Workspace: ws, MaxSteps: 8, Guards: g, Check: "mvn -q test"})
	if err != nil {
		t.Fatal(err)
	}
	out := a.Run(context.Background(), "total() returns 27 instead of 30. Fix it.")
	switch out.Kind {
	case loop.Verified:
		return fmt.Sprintf("PASS(%d)", out.Requests)
	case loop.BadReply:
		return "FAIL:" + out.Reason
	case loop.StepLimit:
		return "FAIL:steps"
	case loop.LoopStop:
		return "FAIL:loop"
	case loop.Done, loop.Unverified:
		return "FAIL:unverified"
	}
	return "FAIL:" + string(out.Kind) + " " + fmt.Sprint(out.Err)
}

// table prints the harness's table as the seed prints it.
func table(t *testing.T, configs int) string {
	var b strings.Builder
	cs := seedConfigs()[:configs]
	fmt.Fprintf(&b, "%-24s", "scenario")
	for _, c := range cs {
		fmt.Fprintf(&b, "%-16s", c.name)
	}
	passed := make([]int, len(cs))
	scs := seedScenarios()
	for _, sc := range scs {
		fmt.Fprintf(&b, "\n%-24s", sc.name)
		for i, c := range cs {
			r := runScenario(t, sc, c.guards)
			if strings.HasPrefix(r, "PASS") {
				passed[i]++
			}
			fmt.Fprintf(&b, "%-16s", r)
		}
	}
	fmt.Fprintf(&b, "\n%-24s", "pass rate")
	for _, p := range passed {
		fmt.Fprintf(&b, "%-16s", fmt.Sprintf("%d/%d", p, len(scs)))
	}
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestSeedHarness runs the seven scenarios of seed 000 Example 13 through
// the real loop (the scripted model, the Hermes parser, repair, retry,
// loop detection, the gate): the seed's four configurations reproduce its
// table exactly (1/7, 3/7, 5/7, 6/7), and loop's fifth, +verify, turns
// "answers before testing" into a verified run: 7/7.
func TestSeedHarness(t *testing.T) {
	golden.Seed(t, "seed000-example13.txt", table(t, 4))
	golden.Check(t, "verify.txt", table(t, 5))
}
