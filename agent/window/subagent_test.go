package window

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/golden"
)

// subagentStep is a scripted step: a tool call, or the final answer when
// tool is "".
type subagentStep struct{ tool, arg, answer string }

// runScripted runs one agent with its own history, as seed 002 Example 10
// does: a call is written "tool(arg)", and the history is counted at 4
// characters a token per message. It stands in for the task tool, which
// the agent loop provides; what it shows is the arithmetic of separate
// histories, and that only the final answer reaches the parent.
func runScripted(out *strings.Builder, name, task string, script *[]subagentStep, tools map[string]func(string) string) string {
	h := []chat.Message{msg("system", "You are "+name+"."), msg("user", task)}
	for {
		s := (*script)[0]
		*script = (*script)[1:]
		if s.tool == "" {
			h = append(h, msg("assistant", s.answer))
			tokens := 0
			for _, m := range h {
				tokens += MessageTokens(Estimate{ToolCharsPerToken: 4}, 0, m)
			}
			fmt.Fprintf(out, "%s: %d messages, ~%d tokens\n", name, len(h), tokens)
			return s.answer
		}
		h = append(h, msg("assistant", s.tool+"("+s.arg+")"), msg("tool", tools[s.tool](s.arg)))
	}
}

// TestSeedSubagent: seed 002 Example 10, a parent whose search runs in a
// subagent with its own history.
func TestSeedSubagent(t *testing.T) {
	var out strings.Builder
	readOnly := map[string]func(string) string{
		"grep": func(string) string { return strings.Repeat("src/app/OrderController.java:41: Order.parse(id)\n", 40) },
		"read": func(string) string { return strings.Repeat("class OrderController { /* 90 lines */ }\n", 50) },
	}
	child := []subagentStep{{tool: "grep", arg: "Order.parse"}, {tool: "read", arg: "src/app/OrderController.java"},
		{answer: "Order ids are parsed only in OrderController.java line 41 via Order.parse(id)."}}
	parentTools := map[string]func(string) string{"task": func(prompt string) string {
		result := runScripted(&out, "subagent", prompt, &child, readOnly)
		fmt.Fprintf(&out, "task result for parent: %d chars\n", len(result))
		return result
	}}
	parent := []subagentStep{{tool: "task", arg: "Find where Order ids are parsed. Report file and line."},
		{answer: "The parsing happens in OrderController.java:41."}}
	runScripted(&out, "parent", "Where are order ids parsed?", &parent, parentTools)
	golden.Seed(t, "seed002_example10.txt", out.String())
}
