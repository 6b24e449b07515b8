package main

import (
	"regexp"

	"github.com/loopagent/loop/agent/chat"
)

// go test prints how long each test and package took. The times change
// from run to run, so the transcripts pin them, and only them, to one
// value: "--- FAIL: TestSum (0.00s)" and "ok  \tcalc\t0.002s". Everything
// else in a tool result is what the real tool returned. The generator also
// runs go with GOFLAGS=-count=1, so that no result reads "(cached)" on one
// run and a time on the next.
var (
	testTime    = regexp.MustCompile(`(?m)^(\s*--- (?:FAIL|PASS|SKIP): \S+ )\(\d+\.\d+s\)`)
	packageTime = regexp.MustCompile(`(?m)^((?:ok|FAIL)\s+\S+\s+)\d+\.\d+s`)
)

// normalize pins the times in the tool results of msgs.
func normalize(msgs []chat.Message) {
	for i, m := range msgs {
		if m.Role == "tool" {
			c := testTime.ReplaceAllString(m.Content, "${1}(0.00s)")
			msgs[i].Content = packageTime.ReplaceAllString(c, "${1}0.002s")
		}
	}
}
