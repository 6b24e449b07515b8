package main

import (
	"regexp"

	"github.com/loopagent/loop/agent/chat"
)

// go test prints how long each test and package took. The times change
// from run to run, so the transcripts pin them, and only them, to one
// value: "--- FAIL: TestSum (0.00s)" and "ok  \tcalc\t0.002s". Everything
// else in a tool result is what the real tool returned.
//
// The generator runs go with goFlags and GOWORK=off: a go test result must
// not depend on the build cache (-count=1: no "(cached)" on one run and a
// time on the next), nor on a go.work above the temporary workspaces, nor
// on which of two packages finished building first (-p=1: with parallel
// builds, go test ./... prints a package's build failure before or after
// another package's "[no test files]" line as the timing falls, so one
// seed would give other chats on a busier machine). go vet finds nothing in
// the generated code, so its part of go test changes no output and only
// costs time: it is off.
const goFlags = "-count=1 -vet=off -p=1"

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
