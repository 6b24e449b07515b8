package callformat

import (
	"testing"

	"github.com/loopagent/loop/agent/chat"
)

const llamaCall = `{"name": "read_file", "parameters": {"path": "pom.xml"}}`

var llama3Tests = []parseTest{
	{"example 4", llamaCall, Parsed{Calls: []chat.ToolCall{readPom}}},
	{"not a call", `{"answer": 42}`, Parsed{Content: `{"answer": 42}`}},
	{"name but no parameters", `{"name": "Ada", "age": 36}`, Parsed{Content: `{"name": "Ada", "age": 36}`}},
	{"arguments alias", `{"name": "read_file", "arguments": {"path": "pom.xml"}}`, Parsed{Calls: []chat.ToolCall{readPom}}},
	{"type function first", `{"type": "function", "name": "read_file", "parameters": {"path": "pom.xml"}}`, Parsed{Calls: []chat.ToolCall{readPom}}},
	{"spaces and eot", "\n  " + llamaCall + "<|eot_id|>", Parsed{Calls: []chat.ToolCall{readPom}}},
	{"python tag", "<|python_tag|>" + llamaCall + "<|eom_id|>", Parsed{Calls: []chat.ToolCall{readPom}}},
	{"text then python tag", "Let me look.<|python_tag|>" + llamaCall, Parsed{Content: "Let me look.", Calls: []chat.ToolCall{readPom}}},
	{"parallel with semicolon", llamaCall + "; " + `{"name": "read_file", "parameters": {"path": "README.md"}}`, Parsed{Calls: []chat.ToolCall{readPom, readReadme}}},
	{"text after the call", llamaCall + "\nThat is the call.", Parsed{Content: "That is the call.", Calls: []chat.ToolCall{readPom}}},
	{"call after text is text", "Here: " + llamaCall, Parsed{Content: "Here: " + llamaCall}},
	{"plain text", "pom.xml declares one module.", Parsed{Content: "pom.xml declares one module."}},
	{"cut off", `{"name": "read_file", "parameters": {"pa`, Parsed{Problems: problems(Unterminated)}},
	{"cut off before parameters", `{"name": "read_fi`, Parsed{Problems: problems(Unterminated)}},
	{"arguments encoded twice", `{"name": "read_file", "parameters": "{\"path\": \"pom.xml\"}"}`, Parsed{Calls: []chat.ToolCall{readPom}}},
	{"parameters not an object", `{"name": "read_file", "parameters": ["pom.xml"]}`, Parsed{Problems: problems(ArgsNotObject)}},
	{"invalid after the arguments", `{"name": "read_file", "parameters": {}, oops}`, Parsed{Problems: problems(InvalidJSON)}},
	{"built-in call", `<|python_tag|>brave_search.call(query="llama 3", count=3, safe=True)`,
		Parsed{Calls: []chat.ToolCall{call("", "brave_search", `{"query":"llama 3","count":3,"safe":true}`)}}},
	{"built-in call cut off", `<|python_tag|>brave_search.call(query="lla`, Parsed{Problems: problems(Unterminated)}},
	{"built-in call malformed", `<|python_tag|>brave_search.call(query='x')`, Parsed{Problems: problems(Malformed)}},
	{"python tag with code", "<|python_tag|>print(1)", Parsed{Content: "print(1)", Problems: problems(OutsideFormat)}},
	{"python tag without name", `<|python_tag|>{"parameters": {}}`, Parsed{Problems: problems(NoName)}},
}

var llama3Seeds = texts(llama3Tests)

func TestParseLlama3(t *testing.T) {
	runParseTests(t, testFormat(t, "llama3"), llama3Tests)
}

func FuzzParseLlama3(f *testing.F) {
	fuzzFormat(f, "llama3", llama3Seeds)
}
