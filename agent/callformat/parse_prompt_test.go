package callformat

import (
	"testing"

	"github.com/loopagent/loop/agent/chat"
)

// example12Replies are the five replies of seed 004 Example 12.
var example12Replies = []string{
	"{\"tool\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}}",
	"Sure, here is the call:\n```json\n{\"tool\": \"list_files\", \"arguments\": {\"dir\": \"src\"}}\n```",
	"{\"answer\": \"pom.xml declares the project demo.\"}",
	"I would read pom.xml first.",
	"{\"tool\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}",
}

var promptTests = []parseTest{
	{"example 12 call", example12Replies[0], Parsed{Calls: []chat.ToolCall{readPom}}},
	{"example 12 call in prose", example12Replies[1], Parsed{Calls: []chat.ToolCall{call("", "list_files", `{"dir":"src"}`)}}},
	{"example 12 answer", example12Replies[2], Parsed{Content: "pom.xml declares the project demo."}},
	{"example 12 prose", example12Replies[3], Parsed{Content: "I would read pom.xml first.", Problems: problems(OutsideFormat)}},
	{"example 12 unclosed", example12Replies[4], Parsed{Problems: problems(InvalidJSON)}},
	{"missing arguments", `{"tool": "list"}`, Parsed{Calls: []chat.ToolCall{call("", "list", "{}")}}},
	{"arguments encoded twice", `{"tool": "read_file", "arguments": "{\"path\": \"pom.xml\"}"}`, Parsed{Calls: []chat.ToolCall{readPom}}},
	{"arguments not an object", `{"tool": "read_file", "arguments": "pom.xml"}`, Parsed{Problems: problems(InvalidJSON)}},
	{"arguments an array", `{"tool": "read_file", "arguments": ["pom.xml"]}`, Parsed{Problems: problems(ArgsNotObject)}},
	{"tool not a string", `{"tool": 3, "arguments": {}}`, Parsed{Problems: problems(NoName)}},
	{"neither", `{"result": 1}`, Parsed{Problems: problems(OutsideFormat)}},
	{"answer not a string", `{"answer": 42}`, Parsed{Problems: problems(OutsideFormat)}},
	{"answer cut off", `{"answer": "The file decl`, Parsed{Content: "The file decl", Problems: problems(InvalidJSON)}},
	{"answer then junk", `{"answer": "ok" junk}`, Parsed{Content: "ok", Problems: problems(InvalidJSON)}},
	{"answer escapes", `{"answer": "a\nb \u00e9 \ud83d\ude00"}`, Parsed{Content: "a\nb é 😀"}},
	{"text after the object", `{"answer": "ok"} and {more}`, Parsed{Content: "ok"}},
	{"first key decides", `{"answer": "x", "tool": "read_file"}`, Parsed{Content: "x"}},
}

var promptSeeds = texts(promptTests)

func TestParsePrompt(t *testing.T) {
	runParseTests(t, testFormat(t, "prompt"), promptTests)
}

func FuzzParsePrompt(f *testing.F) {
	fuzzFormat(f, "prompt", promptSeeds)
}
