package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"

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
// through the real loop under raw, labels each scenario's reply with the
// class the loop recorded, and compares the lines with the seed's printed
// output, copied verbatim. The golden report was checked by hand: under
// raw 7 of the 11 call attempts parse as written (all but the fence, the
// two bad JSONs and the cut-off call), 4 are schema-valid, and only the
// first scenario makes the right call; repair and recovery add the fence,
// the trailing comma and the single quotes (4/11); retries change nothing,
// since the scripts answer "Done." when asked again.
func TestClassifierSuite(t *testing.T) {
	rep := runSuite(t, Classifier(), "raw", "+repair", "+retry", "full")
	var b strings.Builder
	n := 0
	for _, res := range rep.Results {
		if res.Config != "raw" {
			continue
		}
		reply := 0 // the scenario's own reply: the repeat is the second
		if n == 9 {
			reply = 1
		}
		k := classify.Kind(res.Classes[reply])
		n++
		fmt.Fprintf(&b, "%2d. %-31s -> %s\n", n, k.Label(), k.Remedy())
	}
	golden.Seed(t, "example1.txt", b.String())
	golden.Check(t, "report.txt", rep.Table()+"\n"+rep.Rates())
}
