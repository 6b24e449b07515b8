package callformat

import (
	"testing"

	"github.com/loopagent/loop/agent/chat"
)

// The tables of the formats added for issue 9: each has a call as its
// template writes it, two calls, content around them, a cut-off call and a
// broken one. The streaming property of every table is checked in
// TestParseMoreStream.

var functionary31Tests = []parseTest{
	{"call", `<function=read_file>{"path": "pom.xml"}</function>`, Parsed{Calls: []chat.ToolCall{readPom}}},
	{"template end", `<function=read_file>{"path": "pom.xml"}</function><|eom_id|>`, Parsed{Calls: []chat.ToolCall{readPom}}},
	{"text then two calls", "Reading.\n" + `<function=read_file>{"path": "pom.xml"}</function><function=read_file>{"path": "README.md"}</function>`,
		Parsed{Content: "Reading.", Calls: []chat.ToolCall{readPom, readReadme}}},
	{"close left out at the end", `<function=read_file>{"path": "pom.xml"}`, Parsed{Calls: []chat.ToolCall{readPom}}},
	{"cut off", `<function=read_file>{"path": "po`, Parsed{Problems: problems(Unterminated)}},
	{"no name", `<function=>{"path": "pom.xml"}</function> after`, Parsed{Content: "after", Problems: problems(Malformed)}},
	{"bad JSON", `<function=read_file>{path: 1}</function>`, Parsed{Problems: problems(InvalidJSON)}},
	{"plain text", "pom.xml declares one module.", Parsed{Content: "pom.xml declares one module."}},
}

var fireFunctionTests = []parseTest{
	{"call", ` functools[{"name": "read_file", "arguments": {"path": "pom.xml"}}]`, Parsed{Calls: []chat.ToolCall{readPom}}},
	{"two calls after text", `Sure. functools[{"name": "read_file", "arguments": {"path": "pom.xml"}}, {"name": "read_file", "arguments": {"path": "README.md"}}]`,
		Parsed{Content: "Sure.", Calls: []chat.ToolCall{readPom, readReadme}}},
	{"cut off", ` functools[{"name": "read_file", "argu`, Parsed{Problems: problems(Unterminated)}},
	{"array not closed", ` functools[{"name": "read_file", "arguments": {"path": "pom.xml"}}`, Parsed{Calls: []chat.ToolCall{readPom}, Problems: problems(Unterminated)}},
	{"the module is text", "import functools\nfunctools.reduce", Parsed{Content: "import functools\nfunctools.reduce"}},
}

var nemotronTests = []parseTest{
	{"call", `<TOOLCALL>[{"name": "read_file", "arguments": {"path": "pom.xml"}}]</TOOLCALL>`, Parsed{Calls: []chat.ToolCall{readPom}}},
	{"reasoning then two calls", "<think>\nNeed both.\n</think>\n" + `<TOOLCALL>[{"name": "read_file", "arguments": {"path": "pom.xml"}}, {"name": "read_file", "arguments": {"path": "README.md"}}]</TOOLCALL>`,
		Parsed{Reasoning: "Need both.", Calls: []chat.ToolCall{readPom, readReadme}}},
	{"close tag left out", `<TOOLCALL>[{"name": "read_file", "arguments": {"path": "pom.xml"}}]`, Parsed{Calls: []chat.ToolCall{readPom}}},
	{"not an array", `<TOOLCALL>{"name": "read_file"}</TOOLCALL>`, Parsed{Content: `<TOOLCALL>{"name": "read_file"}</TOOLCALL>`, Problems: problems(OutsideFormat)}},
	{"cut off", `<TOOLCALL>[{"name": "read_file", "arguments": {"path"`, Parsed{Problems: problems(Unterminated)}},
}

var deepSeekR1Tests = []parseTest{
	{"call", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"pom.xml\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		Parsed{Calls: []chat.ToolCall{readPom}}},
	{"reasoning, two calls, R1-Distill's open block", "<think>\nBoth.\n</think>\n\n<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"pom.xml\"}\n```<｜tool▁call▁end｜>\n" +
		"<｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"README.md\"}\n```<｜tool▁call▁end｜>",
		Parsed{Reasoning: "Both.", Calls: []chat.ToolCall{readPom, readReadme}}},
	{"end of sentence", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"pom.xml\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜><｜end▁of▁sentence｜>",
		Parsed{Calls: []chat.ToolCall{readPom}}},
	{"cut off", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"pa", Parsed{Problems: problems(Unterminated)}},
	{"no json block", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n{\"path\": \"pom.xml\"}<｜tool▁call▁end｜>", Parsed{Problems: problems(Malformed)}},
}

var deepSeekV31Tests = []parseTest{
	{"call", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"pom.xml\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		Parsed{Calls: []chat.ToolCall{readPom}}},
	{"text then two calls", "Reading.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"pom.xml\"}<｜tool▁call▁end｜>" +
		"<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"README.md\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		Parsed{Content: "Reading.", Calls: []chat.ToolCall{readPom, readReadme}}},
	{"cut off", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\"", Parsed{Problems: problems(Unterminated)}},
	{"space after the arguments", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>read_file<｜tool▁sep｜>{\"path\": \"pom.xml\"} <｜tool▁call▁end｜><｜tool▁calls▁end｜>",
		Parsed{Calls: []chat.ToolCall{readPom}}},
	{"text inside the block", "<｜tool▁calls▁begin｜>oops<｜tool▁calls▁end｜>after", Parsed{Content: "after", Problems: problems(Malformed)}},
}

var kimiTests = []parseTest{
	{"call", "<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{\"path\": \"pom.xml\"}<|tool_call_end|><|tool_calls_section_end|>",
		Parsed{Calls: []chat.ToolCall{call("functions.read_file:0", "read_file", `{"path":"pom.xml"}`)}}},
	{"two calls after text", "Reading.<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{\"path\": \"pom.xml\"}<|tool_call_end|>" +
		"<|tool_call_begin|>functions.read_file:1<|tool_call_argument_begin|>{\"path\": \"README.md\"}<|tool_call_end|><|tool_calls_section_end|>",
		Parsed{Content: "Reading.", Calls: []chat.ToolCall{call("functions.read_file:0", "read_file", `{"path":"pom.xml"}`), call("functions.read_file:1", "read_file", `{"path":"README.md"}`)}}},
	{"cut off", "<|tool_calls_section_begin|><|tool_call_begin|>functions.read_file:0<|tool_call_argument_begin|>{\"pa", Parsed{Problems: problems(Unterminated)}},
	{"no name", "<|tool_calls_section_begin|><|tool_call_begin|>functions.:0<|tool_call_argument_begin|>{}<|tool_call_end|>", Parsed{Problems: problems(Malformed)}},
}

var seedTests = []parseTest{
	{"call", "<seed:tool_call>\n<function=read_file>\n<parameter=path>pom.xml</parameter>\n</function>\n</seed:tool_call>", Parsed{Calls: []chat.ToolCall{readPom}}},
	{"reasoning, text, two calls", "<seed:think>Both files.</seed:think>\nReading.\n<seed:tool_call>\n<function=read_file>\n<parameter=path>pom.xml</parameter>\n</function>\n</seed:tool_call>" +
		"\n<seed:tool_call>\n<function=head>\n<parameter=path>README.md</parameter>\n<parameter=lines>5</parameter>\n</function>\n</seed:tool_call>",
		Parsed{Reasoning: "Both files.", Content: "Reading.", Calls: []chat.ToolCall{readPom, call("", "head", `{"path":"README.md","lines":5}`)}}},
	{"multi-line value", "<seed:tool_call>\n<function=read_file>\n<parameter=path>a\nb</parameter>\n</function>\n</seed:tool_call>",
		Parsed{Calls: []chat.ToolCall{call("", "read_file", `{"path":"a\nb"}`)}}},
	{"cut off", "<seed:tool_call>\n<function=read_file>\n<parameter=path>pom", Parsed{Problems: problems(Unterminated)}},
	{"no function", "<seed:tool_call>\n{\"name\": \"read_file\"}\n</seed:tool_call>after", Parsed{Content: "after", Problems: problems(Malformed)}},
	{"think tag is text", "<think>not Seed's</think>", Parsed{Content: "<think>not Seed's</think>"}},
}

var functionary32Tests = []parseTest{
	{"call", "read_file\n{\"path\": \"pom.xml\"}", Parsed{Calls: []chat.ToolCall{readPom}}},
	{"text then two calls", "all\nReading.>>>read_file\n{\"path\": \"pom.xml\"}>>>read_file\n{\"path\": \"README.md\"}<|eot_id|>",
		Parsed{Content: "Reading.", Calls: []chat.ToolCall{readPom, readReadme}}},
	{"answer", "all\npom.xml declares the project demo.", Parsed{Content: "pom.xml declares the project demo."}},
	{"plain text", "pom.xml declares one module.", Parsed{Content: "pom.xml declares one module."}},
	{"a word on the first line", "Hello\nthere.", Parsed{Content: "Hello\nthere."}},
	{"cut off", "read_file\n{\"path\": \"po", Parsed{Problems: problems(Unterminated)}},
	{"bad JSON", "read_file\n{path}", Parsed{Problems: problems(InvalidJSON)}},
}

// moreTables are the tables by format.
var moreTables = map[string][]parseTest{
	"functionary-v3.1": functionary31Tests, "functionary-v3.2": functionary32Tests, "firefunction-v2": fireFunctionTests, "nemotron-v2": nemotronTests,
	"deepseek-r1": deepSeekR1Tests, "deepseek-v3.1": deepSeekV31Tests, "kimi-k2": kimiTests, "seed-oss": seedTests,
}

func TestParseMore(t *testing.T) {
	for name, tests := range moreTables {
		t.Run(name, func(t *testing.T) { runParseTests(t, testFormat(t, name), tests) })
	}
}

// TestParseMoreStream feeds every text of the tables in random pieces:
// the joined deltas are a prefix of Parse, and Finish is Parse.
func TestParseMoreStream(t *testing.T) {
	for name, tests := range moreTables {
		for i, tt := range tests {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				checkStream(t, func() Format { return testFormat(t, name) }, tt.text, uint64(i))
			})
		}
	}
}

func FuzzParseFunctionary31(f *testing.F) {
	fuzzFormat(f, "functionary-v3.1", texts(functionary31Tests))
}
func FuzzParseFireFunction(f *testing.F) { fuzzFormat(f, "firefunction-v2", texts(fireFunctionTests)) }
func FuzzParseNemotron(f *testing.F)     { fuzzFormat(f, "nemotron-v2", texts(nemotronTests)) }
func FuzzParseDeepSeekR1(f *testing.F)   { fuzzFormat(f, "deepseek-r1", texts(deepSeekR1Tests)) }
func FuzzParseDeepSeekV31(f *testing.F)  { fuzzFormat(f, "deepseek-v3.1", texts(deepSeekV31Tests)) }
func FuzzParseKimi(f *testing.F)         { fuzzFormat(f, "kimi-k2", texts(kimiTests)) }
func FuzzParseSeed(f *testing.F)         { fuzzFormat(f, "seed-oss", texts(seedTests)) }
func FuzzParseFunctionary32(f *testing.F) {
	fuzzFormat(f, "functionary-v3.2", texts(functionary32Tests))
}
