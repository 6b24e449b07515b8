package callformat

import (
	"testing"

	"github.com/loopagent/loop/agent/chat"
)

const (
	hermesPom    = "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}}\n</tool_call>"
	hermesReadme = "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"README.md\"}}\n</tool_call>"
)

var (
	readPom    = call("", "read_file", `{"path":"pom.xml"}`)
	readReadme = call("", "read_file", `{"path":"README.md"}`)
)

// example5Tests are the nine inputs of seed 004 Example 5 and the seed's
// outputs, except case 8, where this parser also reports OutsideFormat.
var example5Tests = []parseTest{
	{"1 text then call", "Let me check.\n" + hermesPom, Parsed{Content: "Let me check.", Calls: []chat.ToolCall{readPom}}},
	{"2 two calls", hermesPom + "\n" + hermesReadme, Parsed{Calls: []chat.ToolCall{readPom, readReadme}}},
	{"3 cut off", "<tool_call>\n{\"name\": \"read_file\", \"argum", Parsed{Problems: problems(Unterminated)}},
	{"4 single quotes", "<tool_call>\n{'name': 'read_file', 'arguments': {'path': 'pom.xml'}}\n</tool_call>", Parsed{Problems: problems(InvalidJSON)}},
	{"5 arguments encoded twice", "<tool_call>\n{\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"pom.xml\\\"}\"}\n</tool_call>", Parsed{Calls: []chat.ToolCall{readPom}}},
	{"6 no name", "<tool_call>\n{\"arguments\": {\"path\": \"pom.xml\"}}\n</tool_call>", Parsed{Problems: problems(NoName)}},
	{"7 arguments an array", "<tool_call>\n{\"name\": \"read_file\", \"arguments\": [\"pom.xml\"]}\n</tool_call>", Parsed{Problems: problems(ArgsNotObject)}},
	{"8 fenced JSON", "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}}\n```",
		Parsed{Content: "```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}}\n```", Problems: problems(OutsideFormat)}},
	{"9 call then text", hermesPom + "\nI hope this helps.", Parsed{Content: "I hope this helps.", Calls: []chat.ToolCall{readPom}}},
}

var hermesTests = append(append([]parseTest{}, example5Tests...), []parseTest{
	{"plain text", "pom.xml declares one module.", Parsed{Content: "pom.xml declares one module."}},
	{"a call's tail", "It answers.go\"}}", Parsed{Content: "It answers.go\"}}", Problems: problems(OutsideFormat)}},
	{"a call's tail and its close", "It answers.go\"}}\n</tool_call>", Parsed{Content: "It answers.go\"}}\n</tool_call>", Problems: problems(OutsideFormat)}},
	{"braces that balance", "Use {\"a\": {}} here: {}", Parsed{Content: "Use {\"a\": {}} here: {}"}},
	{"empty", "", Parsed{}},
	{"text between calls", "A\n" + hermesPom + "\nB\n" + hermesReadme + "\nC", Parsed{Content: "A\n\nB\n\nC", Calls: []chat.ToolCall{readPom, readReadme}}},
	{"qwen3 reasoning", "<think>\nThe user wants pom.xml.\n</think>\n\n" + hermesPom, Parsed{Reasoning: "The user wants pom.xml.", Calls: []chat.ToolCall{readPom}}},
	{"reasoning cut off", "<think>\nStill thinking", Parsed{Reasoning: "Still thinking"}},
	{"tool call inside reasoning", "<think>maybe " + hermesPom + "</think>done", Parsed{Content: "done", Reasoning: "maybe " + hermesPom}},
	{"lone close kept", "answer</think> more", Parsed{Content: "answer</think> more"}},
	{"lone close not glued", "thinking</think>Hello", Parsed{Content: "thinking</think>Hello"}},
	{"function tag with JSON", `<function=read_file>{"path": "pom.xml"}</function>`,
		Parsed{Content: `<function=read_file>{"path": "pom.xml"}</function>`, Problems: problems(OutsideFormat)}},
	{"function name attribute", "<function name=\"read_file\">\n{\"path\": \"pom.xml\"}\n</function>",
		Parsed{Content: "<function name=\"read_file\">\n{\"path\": \"pom.xml\"}\n</function>", Problems: problems(OutsideFormat)}},
	{"parameters alias", "<tool_call>\n{\"name\": \"read_file\", \"parameters\": {\"path\": \"pom.xml\"}}\n</tool_call>", Parsed{Calls: []chat.ToolCall{readPom}}},
	{"missing arguments", "<tool_call>\n{\"name\": \"list\"}\n</tool_call>", Parsed{Calls: []chat.ToolCall{call("", "list", "{}")}}},
	{"key order kept", "<tool_call>{\"arguments\": {\"z\": 1, \"a\": [1, {\"c\": 2, \"b\": 3}]}, \"name\": \"f\"}</tool_call>", Parsed{Calls: []chat.ToolCall{call("", "f", `{"z":1,"a":[1,{"c":2,"b":3}]}`)}}},
	{"close tag inside a string", "<tool_call>\n{\"name\": \"write\", \"arguments\": {\"text\": \"a </tool_call> b\"}}\n</tool_call>", Parsed{Calls: []chat.ToolCall{call("", "write", `{"text":"a </tool_call> b"}`)}}},
	{"second call cut off", hermesPom + "\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"REA", Parsed{Calls: []chat.ToolCall{readPom}, Problems: problems(Unterminated)}},
	{"cut off in the close tag", "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {}}\n</tool_c", Parsed{Problems: problems(Unterminated)}},
	{"cut off after the open tag", "Sure.\n<tool_call>", Parsed{Content: "Sure.", Problems: problems(Unterminated)}},
	{"text after the object", "<tool_call>\n{\"name\": \"read_file\"} oops\n</tool_call>after", Parsed{Content: "after", Problems: problems(InvalidJSON)}},
	{"not an object", "<tool_call>\n[1, 2]\n</tool_call>", Parsed{Problems: problems(NoName)}},
	{"name not a string", "<tool_call>\n{\"name\": 7, \"arguments\": {}}\n</tool_call>", Parsed{Problems: problems(NoName)}},
	{"arguments string not JSON", "<tool_call>\n{\"name\": \"f\", \"arguments\": \"{oops\"}\n</tool_call>", Parsed{Problems: problems(InvalidJSON)}},
	{"open tag prefix is text", "a <tool_ b", Parsed{Content: "a <tool_ b"}},
	{"bare JSON call", "{\"name\": \"read_file\", \"arguments\": {}}", Parsed{Content: "{\"name\": \"read_file\", \"arguments\": {}}", Problems: problems(OutsideFormat)}},
	{"a call's tail without its start", "It answers.go\"}}\n</tool_call>", Parsed{Content: "It answers.go\"}}\n</tool_call>", Problems: problems(OutsideFormat)}},
}...)

var hermesSeeds = texts(hermesTests)

func TestParseHermes(t *testing.T) {
	runParseTests(t, testFormat(t, "hermes"), hermesTests)
}

// TestParseHermesReasoningOpen: a template that opened <think> in the
// prompt (QwQ, Qwen3 thinking) gets a reply with only </think>.
func TestParseHermesReasoningOpen(t *testing.T) {
	f, err := NewWithOptions("hermes", parseTools, Options{ReasoningOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	runParseTests(t, f, []parseTest{
		{"closed", "The user wants pom.xml.\n</think>\n\n" + hermesPom, Parsed{Reasoning: "The user wants pom.xml.", Calls: []chat.ToolCall{readPom}}},
		{"cut off", "Still thinking <tool_call>", Parsed{Reasoning: "Still thinking <tool_call>"}},
		{"content after", "hm</think>The answer.", Parsed{Reasoning: "hm", Content: "The answer."}},
	})
	for i, text := range []string{"The user wants pom.xml.\n</think>\n\n" + hermesPom, "a</th", "a</think>b<think>c</think>d"} {
		checkStream(t, func() Format { return f }, text, uint64(i))
	}
}

func FuzzParseHermes(f *testing.F) {
	fuzzFormat(f, "hermes", hermesSeeds)
}
