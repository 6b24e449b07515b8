package callformat

import (
	"testing"

	"github.com/loopagent/loop/agent/chat"
)

// xmlCall renders a call as the Qwen3-Coder template does.
func xmlCall(name string, params ...string) string {
	s := "<tool_call>\n<function=" + name + ">\n"
	for i := 0; i+1 < len(params); i += 2 {
		s += "<parameter=" + params[i] + ">\n" + params[i+1] + "\n</parameter>\n"
	}
	return s + "</function>\n</tool_call>"
}

var qwen3CoderTests = []parseTest{
	{"one call", "I will read it.\n" + xmlCall("read_file", "path", "pom.xml"), Parsed{Content: "I will read it.", Calls: []chat.ToolCall{readPom}}},
	{"parallel", xmlCall("read_file", "path", "pom.xml") + "\n" + xmlCall("read_file", "path", "README.md"), Parsed{Calls: []chat.ToolCall{readPom, readReadme}}},
	{"typed values", xmlCall("head", "path", "a.txt", "lines", "12", "flags", `["-n", "-v"]`),
		Parsed{Calls: []chat.ToolCall{call("", "head", `{"path":"a.txt","lines":12,"flags":["-n","-v"]}`)}}},
	{"string that looks like a number", xmlCall("read_file", "path", "123"), Parsed{Calls: []chat.ToolCall{call("", "read_file", `{"path":"123"}`)}}},
	{"typed value that does not parse", xmlCall("head", "path", "a", "lines", "twelve"), Parsed{Calls: []chat.ToolCall{call("", "head", `{"path":"a","lines":"twelve"}`)}}},
	{"undeclared parameter is a string", xmlCall("head", "path", "a", "extra", "true"), Parsed{Calls: []chat.ToolCall{call("", "head", `{"path":"a","extra":"true"}`)}}},
	{"unknown tool: strings", xmlCall("other", "n", "5"), Parsed{Calls: []chat.ToolCall{call("", "other", `{"n":"5"}`)}}},
	{"multi-line value keeps its newlines", xmlCall("write", "text", "line 1\n  line 2\n"), Parsed{Calls: []chat.ToolCall{call("", "write", `{"text":"line 1\n  line 2\n"}`)}}},
	{"value with markup", xmlCall("write", "text", "<b>x</b> & \"q\""), Parsed{Calls: []chat.ToolCall{call("", "write", `{"text":"<b>x</b> & \"q\""}`)}}},
	{"no parameters", "<tool_call>\n<function=list>\n</function>\n</tool_call>", Parsed{Calls: []chat.ToolCall{call("", "list", "{}")}}},
	{"no newlines", "<tool_call><function=read_file><parameter=path>pom.xml</parameter></function></tool_call>", Parsed{Calls: []chat.ToolCall{readPom}}},
	{"two functions in one block", "<tool_call>\n<function=read_file>\n<parameter=path>\npom.xml\n</parameter>\n</function>\n<function=read_file>\n<parameter=path>\nREADME.md\n</parameter>\n</function>\n</tool_call>",
		Parsed{Calls: []chat.ToolCall{readPom, readReadme}}},
	{"end after </function>", "<tool_call>\n<function=list>\n</function>\n", Parsed{Calls: []chat.ToolCall{call("", "list", "{}")}}},
	{"end in </tool_call>", "<tool_call>\n<function=list>\n</function>\n</tool_", Parsed{Calls: []chat.ToolCall{call("", "list", "{}")}}},
	{"reasoning", "<think>plan</think>\n" + xmlCall("read_file", "path", "pom.xml"), Parsed{Reasoning: "plan", Calls: []chat.ToolCall{readPom}}},
	{"text after", xmlCall("read_file", "path", "pom.xml") + "\nDone.", Parsed{Content: "Done.", Calls: []chat.ToolCall{readPom}}},
	{"plain text", "No tools needed.", Parsed{Content: "No tools needed."}},
	{"cut off in a value", "<tool_call>\n<function=read_file>\n<parameter=path>\npom.x", Parsed{Problems: problems(Unterminated)}},
	{"cut off in the name", "<tool_call>\n<function=read_fi", Parsed{Problems: problems(Unterminated)}},
	{"cut off after the open tag", "ok <tool_call>\n", Parsed{Content: "ok", Problems: problems(Unterminated)}},
	{"second call cut off", xmlCall("read_file", "path", "pom.xml") + "\n<tool_call>\n<function=read_file>\n<parameter=pa", Parsed{Calls: []chat.ToolCall{readPom}, Problems: problems(Unterminated)}},
	{"JSON inside the tags", hermesPom + "\nafter", Parsed{Content: "after", Problems: problems(Malformed)}},
	{"text between parameters", "<tool_call>\n<function=f>\nhello\n</function>\n</tool_call>rest", Parsed{Content: "rest", Problems: problems(Malformed)}},
	{"OpenHands form without tool_call", "Reading.\n<function=read_file>\n<parameter=path>pom.xml</parameter>\n</function>\nthen more",
		Parsed{Content: "Reading.\n\nthen more", Calls: []chat.ToolCall{readPom}}},
	{"bare function malformed", "<function=read_file>\nhello</function>after", Parsed{Content: "after", Problems: problems(Malformed)}},
	{"bare function cut off", "<function=read_file>\n<parameter=path>\npom", Parsed{Problems: problems(Unterminated)}},
	{"JSON call outside the tags", `{"name": "read_file", "arguments": {}}`, Parsed{Content: `{"name": "read_file", "arguments": {}}`, Problems: problems(OutsideFormat)}},
}

var qwen3CoderSeeds = texts(qwen3CoderTests)

func TestParseQwen3Coder(t *testing.T) {
	runParseTests(t, testFormat(t, "qwen3-coder"), qwen3CoderTests)
}

func FuzzParseQwen3Coder(f *testing.F) {
	fuzzFormat(f, "qwen3-coder", qwen3CoderSeeds)
}
