package callformat

import (
	"testing"

	"github.com/loopagent/loop/agent/chat"
)

var mistralTests = []parseTest{
	{"example 4", `[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "pom.xml"}, "id": "a1B2c3D4e"}]`,
		Parsed{Calls: []chat.ToolCall{call("a1B2c3D4e", "read_file", `{"path":"pom.xml"}`)}}},
	{"parallel array", `[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "pom.xml"}, "id": "a1B2c3D4e"}, {"name": "read_file", "arguments": {"path": "README.md"}, "id": "f5G6h7I8j"}]`,
		Parsed{Calls: []chat.ToolCall{call("a1B2c3D4e", "read_file", `{"path":"pom.xml"}`), call("f5G6h7I8j", "read_file", `{"path":"README.md"}`)}}},
	{"no id", `[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "pom.xml"}}]`, Parsed{Calls: []chat.ToolCall{readPom}}},
	{"id kept as written", `[TOOL_CALLS][{"id": "call_1", "name": "read_file", "arguments": {"path": "pom.xml"}}]`,
		Parsed{Calls: []chat.ToolCall{call("call_1", "read_file", `{"path":"pom.xml"}`)}}},
	{"text before", "Reading.[TOOL_CALLS][{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}}]", Parsed{Content: "Reading.", Calls: []chat.ToolCall{readPom}}},
	{"text after", `[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "pom.xml"}}] done`, Parsed{Content: "done", Calls: []chat.ToolCall{readPom}}},
	{"small 3.2 form", `[TOOL_CALLS]read_file[CALL_ID]a1B2c3D4e[ARGS]{"path": "pom.xml"}`, Parsed{Calls: []chat.ToolCall{call("a1B2c3D4e", "read_file", `{"path":"pom.xml"}`)}}},
	{"devstral form parallel", `[TOOL_CALLS]read_file[ARGS]{"path": "pom.xml"}[TOOL_CALLS]read_file[ARGS]{"path": "README.md"}`, Parsed{Calls: []chat.ToolCall{readPom, readReadme}}},
	{"args encoded twice", `[TOOL_CALLS]read_file[ARGS]"{\"path\": \"pom.xml\"}"`, Parsed{Calls: []chat.ToolCall{readPom}}},
	{"plain text", "No call.", Parsed{Content: "No call."}},
	{"cut off in the array", `[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "pom.xml"}, "id": "a1B2c3D4e"}, {"name": "read_file", "argu`,
		Parsed{Calls: []chat.ToolCall{call("a1B2c3D4e", "read_file", `{"path":"pom.xml"}`)}, Problems: problems(Unterminated)}},
	{"array not closed", `[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "pom.xml"}}`, Parsed{Calls: []chat.ToolCall{readPom}, Problems: problems(Unterminated)}},
	{"cut off after the tag", `[TOOL_CALLS]`, Parsed{Problems: problems(Unterminated)}},
	{"cut off in the args", `[TOOL_CALLS]read_file[ARGS]{"path": "po`, Parsed{Problems: problems(Unterminated)}},
	{"cut off in the name", `[TOOL_CALLS]read_fi`, Parsed{Problems: problems(Unterminated)}},
	{"invalid JSON", `[TOOL_CALLS][{'name': 'read_file'}]`, Parsed{Problems: problems(InvalidJSON)}},
	{"element without name", `[TOOL_CALLS][{"arguments": {}}]`, Parsed{Problems: problems(NoName)}},
	{"arguments not an object", `[TOOL_CALLS][{"name": "f", "arguments": 3}]`, Parsed{Problems: problems(ArgsNotObject)}},
	{"no [ARGS]", `[TOOL_CALLS]read_file[OOPS]{}`, Parsed{Problems: problems(Malformed)}},
	{"prose after the tag", `[TOOL_CALLS]I will call [x]`, Parsed{Problems: problems(Malformed)}},
	{"array without the tag", `[{"name": "read_file", "arguments": {}}]`, Parsed{Content: `[{"name": "read_file", "arguments": {}}]`, Problems: problems(OutsideFormat)}},
	{"empty array", `[TOOL_CALLS][] ok`, Parsed{Content: "ok"}},
}

var mistralSeeds = texts(mistralTests)

func TestParseMistral(t *testing.T) {
	runParseTests(t, testFormat(t, "mistral"), mistralTests)
}

func FuzzParseMistral(f *testing.F) {
	fuzzFormat(f, "mistral", mistralSeeds)
}
