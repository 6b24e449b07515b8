package callformat

import (
	"testing"

	"github.com/loopagent/loop/agent/chat"
)

// harmonyExample4 is the Harmony sample of seed 004 Example 4.
const harmonyExample4 = "<|channel|>analysis<|message|>The user wants pom.xml.<|end|>" +
	"<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\": \"pom.xml\"}<|call|>"

var harmonyTests = []parseTest{
	{"example 4", harmonyExample4, Parsed{Reasoning: "The user wants pom.xml.", Calls: []chat.ToolCall{readPom}}},
	{"recipient in the role header", " to=functions.read_file<|channel|>commentary json<|message|>{\"path\": \"pom.xml\"}<|call|>", Parsed{Calls: []chat.ToolCall{readPom}}},
	{"call on the analysis channel", "<|channel|>analysis to=functions.read_file<|message|>{\"path\": \"pom.xml\"}<|call|>", Parsed{Calls: []chat.ToolCall{readPom}}},
	{"call without <|call|>", "<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{\"path\": \"pom.xml\"}", Parsed{Calls: []chat.ToolCall{readPom}}},
	{"final answer", "<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>pom.xml declares one module.<|return|>",
		Parsed{Reasoning: "Easy.", Content: "pom.xml declares one module."}},
	{"final without end", "<|channel|>final<|message|>Partial answer", Parsed{Content: "Partial answer"}},
	{"preamble and final", "<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant<|channel|>final<|message|>Done.<|end|>", Parsed{Content: "Checking.\n\nDone."}},
	{"two analysis messages", "<|channel|>analysis<|message|>One.<|end|><|start|>assistant<|channel|>analysis<|message|>Two.<|end|>", Parsed{Reasoning: "One.\n\nTwo."}},
	{"plain text", "pom.xml declares one module.", Parsed{Content: "pom.xml declares one module."}},
	{"text after a call", "<|channel|>commentary to=functions.read_file json<|message|>{\"path\": \"pom.xml\"}<|call|>trailing", Parsed{Content: "trailing", Calls: []chat.ToolCall{readPom}}},
	{"cut off in the arguments", "<|channel|>commentary to=functions.read_file json<|message|>{\"path\": \"po", Parsed{Problems: problems(Unterminated)}},
	{"cut off in the header", "<|channel|>analysis<|message|>hm<|end|><|start|>assistant<|channel|>commentary to=functions.read", Parsed{Reasoning: "hm", Problems: problems(Unterminated)}},
	{"empty body at the end", "<|channel|>commentary to=functions.read_file json<|message|>", Parsed{Problems: problems(Unterminated)}},
	{"invalid arguments", "<|channel|>commentary to=functions.read_file json<|message|>{path: x}<|call|>", Parsed{Problems: problems(InvalidJSON)}},
	{"no function name", "<|channel|>commentary to=functions. json<|message|>{}<|call|>", Parsed{Problems: problems(NoName)}},
	{"header without message", "<|channel|>commentary to=functions.f<|end|>after", Parsed{Content: "after", Problems: problems(Malformed)}},
	{"arguments not an object", "<|channel|>commentary to=functions.f<|message|>[1]<|call|>", Parsed{Problems: problems(ArgsNotObject)}},
}

var harmonySeeds = texts(harmonyTests)

func TestParseHarmony(t *testing.T) {
	runParseTests(t, testFormat(t, "harmony"), harmonyTests)
}

func FuzzParseHarmony(f *testing.F) {
	fuzzFormat(f, "harmony", harmonySeeds)
}
