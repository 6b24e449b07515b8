package eval

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loopagent/loop/agent/classify"
	"github.com/loopagent/loop/internal/golden"
)

func runSuite(t *testing.T, suite *Suite, names ...string) *Report {
	t.Helper()
	var configs []Config
	for _, n := range names {
		c, err := LookupConfig(n)
		if err != nil {
			t.Fatal(err)
		}
		configs = append(configs, c)
	}
	rep, err := Runner{}.Run(context.Background(), suite, configs)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestClassifierSuite runs the eleven replies of seed 000 Example 1
// through the real loop under raw and compares the class the loop
// recorded for each scenario's reply with the kinds of the seed's printed
// output (which agent/classify's TestSeedExample1 compares verbatim with
// the classifier's own). The golden report was checked by hand: under
// raw 7 of the 11 call attempts parse as written (all but the fence, the
// two bad JSONs and the cut-off call), 4 are schema-valid, and only the
// first scenario makes the right call; repair and recovery add the fence,
// the trailing comma and the single quotes (4/11); retries change nothing,
// since the scripts answer "Done." when asked again.
func TestClassifierSuite(t *testing.T) {
	rep := runSuite(t, Classifier(), "raw", "+repair", "+retry", "full")
	var got []classify.Kind
	for _, res := range rep.Results {
		if res.Config != "raw" {
			continue
		}
		reply := 0 // the scenario's own reply: the repeat is the second
		if len(got) == 9 {
			reply = 1
		}
		got = append(got, classify.Kind(res.Classes[reply]))
	}
	want := []classify.Kind{classify.OK, classify.OutsideFormat, classify.InvalidJSON, classify.InvalidJSON,
		classify.UnknownTool, classify.MissingArgument, classify.WrongType, classify.CutOff,
		classify.PathMissing, classify.Repeat, classify.TextOnly}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("raw classes of the seed's eleven replies (-seed +got):\n%s", diff)
	}
	golden.Check(t, "report.txt", rep.Table()+"\n"+rep.Rates())
}
