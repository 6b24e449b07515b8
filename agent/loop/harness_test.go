package loop_test

import (
	"context"
	"testing"

	"github.com/loopagent/loop/agent/eval"
	"github.com/loopagent/loop/agent/loopguard"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/internal/golden"
)

func call(json string) string { return "<tool_call>\n" + json + "\n</tool_call>" }

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

// table runs eval's built-in suite of seed 000 Example 13 under the named
// configurations and prints the seed's table.
func table(t *testing.T, names []string) string {
	t.Helper()
	var configs []eval.Config
	for _, n := range names {
		c, err := eval.LookupConfig(n)
		if err != nil {
			t.Fatal(err)
		}
		configs = append(configs, c)
	}
	rep, err := eval.Runner{}.Run(context.Background(), eval.Seed13(), configs)
	if err != nil {
		t.Fatal(err)
	}
	return rep.Table()
}

// TestSeedHarness runs the seven scenarios of seed 000 Example 13 through
// the real loop (the scripted model, the Hermes parser, repair, retry,
// loop detection, the gate): the seed's four configurations reproduce its
// table exactly (1/7, 3/7, 5/7, 6/7), and loop's fifth, +verify, turns
// "answers before testing" into a verified run: 7/7. The scenarios and
// configurations are `loop eval`'s built-ins (agent/eval).
func TestSeedHarness(t *testing.T) {
	golden.Seed(t, "seed000-example13.txt", table(t, eval.SeedConfigs[:4]))
	golden.Check(t, "verify.txt", table(t, eval.SeedConfigs))
}
