package window

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/golden"
)

// shortContextStep is one tool step of seed 000 Example 10.
type shortContextStep struct {
	tool, target string
	resultChars  int
}

// shortContextSession is the session of seed 000 Example 10: two reads,
// a test run, an edit, a reread, a second run, a search, an edit, a
// reread and a third run.
var shortContextSession = []shortContextStep{
	{"read_file", "OrderService.java", 6_000}, {"read_file", "OrderTest.java", 4_500},
	{"shell", "mvn test", 9_000}, {"edit_file", "OrderService.java", 300},
	{"read_file", "OrderService.java", 6_100}, {"shell", "mvn test", 8_000},
	{"grep", "total(", 1_500}, {"edit_file", "OrderService.java", 300},
	{"read_file", "OrderService.java", 6_100}, {"shell", "mvn test", 2_500},
}

// shortContextCall is a call of exactly 120 characters (name plus
// arguments), the seed's CALL.
func shortContextCall(id string, s shortContextStep) chat.Message {
	key := map[string]string{"shell": "command", "grep": "pattern"}[s.tool]
	if key == "" {
		key = "path"
	}
	args := fmt.Sprintf(`{%q:%q,"why":""}`, key, s.target)
	pad := strings.Repeat(".", 120-len(s.tool)-len(args))
	return namedCall(id, s.tool, strings.Replace(args, `"why":""`, `"why":"`+pad+`"`, 1))
}

// shortContextPrompts runs the session through a manager and returns the
// prompt size before each of the eleven requests, in the seed's measure:
// characters / 3, the system prompt being 3,000 characters. capChars 0
// keeps results whole; stale stubs stale results before every request,
// as the seed's CAP_AND_STALE policy does.
func shortContextPrompts(t *testing.T, capChars int, stale bool) []int {
	t.Helper()
	cfg := Config{Window: 1 << 20, System: msg("system", strings.Repeat("s", 3_000)), ToolCap: -1}
	if capChars > 0 {
		cfg.ToolCap, cfg.CapWithin = capChars, true
	}
	m := New(cfg)
	var sizes []int
	for i := 0; ; i++ {
		req, err := m.Request(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		msgs := req.Messages
		if stale {
			msgs, _ = StubStale(msgs, nil)
		}
		chars := 0
		for _, m := range msgs {
			chars += utf8.RuneCountInString(MessageText(m))
		}
		sizes = append(sizes, chars/3)
		if i == len(shortContextSession) {
			return sizes
		}
		s, id := shortContextSession[i], fmt.Sprintf("c%d", i+1)
		add(t, m, shortContextCall(id, s), resultMsg(id, strings.Repeat("r", s.resultChars)))
	}
}

// TestSeed000ShortContext: seed 000 Example 10, the prompt before each
// request when results are kept whole, capped on entry at 1,200
// characters, and capped with stale results stubbed.
func TestSeed000ShortContext(t *testing.T) {
	cols := [][]int{shortContextPrompts(t, 0, false), shortContextPrompts(t, 1200, false), shortContextPrompts(t, 1200, true)}
	var sb strings.Builder
	sb.WriteString("request  last step                     keep-all     cap   cap+stale\n")
	for i := range cols[0] {
		last := "(start)"
		if i > 0 {
			last = shortContextSession[i-1].tool + " " + shortContextSession[i-1].target
		}
		fmt.Fprintf(&sb, "%7d  %-28s %9d %7d %11d\n", i+1, last, cols[0][i], cols[1][i], cols[2][i])
	}
	for i, name := range []string{"KEEP_ALL", "CAP", "CAP_AND_STALE"} {
		total := 0
		for _, n := range cols[i] {
			total += n
		}
		fmt.Fprintf(&sb, "%-14s total prompt tokens processed: %s\n", name, thousands(total))
	}
	golden.Seed(t, "seed000_example10.txt", sb.String())
}

// thousands writes n with commas, as Java's %,d.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
