package repair

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/golden"
)

// llamaTools are the tools of llama.cpp's tests/test-chat.cpp.
const llamaTools = `[
{"type": "function", "function": {"name": "special_function", "description": "I'm special", "parameters": {"type": "object", "properties": {"arg1": {"type": "integer", "description": "The arg."}}, "required": ["arg1"]}}},
{"type": "function", "function": {"name": "special_function_with_opt", "description": "I'm special but have optional stuff", "parameters": {"type": "object", "properties": {"arg1": {"type": "integer", "description": "The arg."}, "arg2": {"type": "integer", "description": "The optional arg."}}, "required": ["arg1"]}}},
{"type": "function", "function": {"name": "python", "description": "an ipython interpreter", "parameters": {"type": "object", "properties": {"code": {"type": "string", "description": "Python code to execute."}}, "required": ["code"]}}}]`

// llamaMsg is a message as llama.cpp's tests expect it.
type llamaMsg struct {
	content, reasoning string
	calls              []chat.FunctionCall
}

// llamaCase is one common_chat_parse case of the Hermes 2 Pro block of
// llama.cpp's tests/test-chat.cpp, with its options and expected message:
// facts taken from the test, in its order.
type llamaCase struct {
	name  string
	input string
	// partial is is_partial: llama.cpp parses a snapshot of a stream.
	partial bool
	// reasoning is reasoning_format deepseek; without it, and with
	// reasoning_in_content, <think> blocks stay in the content.
	reasoning, inContent bool
	// forcedOpen is thinking_forced_open; noCalls is parse_tool_calls
	// false.
	forcedOpen, noCalls bool
	want                llamaMsg
	// differs says why loop's result differs from llama.cpp's; empty
	// when they agree.
	differs string
}

const helloUp = "Hello, world!\nWhat's up?"

var (
	special  = chat.FunctionCall{Name: "special_function", Arguments: `{"arg1": 1}`}
	pyHello  = chat.FunctionCall{Name: "python", Arguments: `{"code":"print('hello')"}`}
	callOnly = llamaMsg{calls: []chat.FunctionCall{special}}
	specJSON = `{"name": "special_function", "arguments": {"arg1": 1}}`
)

var llamaCases = []llamaCase{
	{name: "partial fenced function_call", input: "```json\n<function_call> { \"name\" : \"python\"", partial: true,
		want: llamaMsg{calls: []chat.FunctionCall{{Name: "python"}}}, differs: "a stream snapshot of a call cut off: loop never takes a truncated call"},
	{name: "partial open tag with name", input: "Let's call something\n<tool_call>{\"name\"", partial: true, reasoning: true,
		want: llamaMsg{content: "Let's call something\n"}},
	{name: "partial open tag with name prefix", input: "Let's call something\n<tool_call>{\"name", partial: true, reasoning: true,
		want: llamaMsg{content: "Let's call something\n"}},
	{name: "forced-open thinking then call", input: "I'm\nthinking</think>\n<tool_call>" + specJSON + "</tool_call>", reasoning: true, forcedOpen: true,
		want: llamaMsg{reasoning: "I'm\nthinking", calls: []chat.FunctionCall{special}}},
	{name: "tool_call", input: "<tool_call>\n" + specJSON + "\n</tool_call>", want: callOnly},
	{name: "content then tool_call", input: helloUp + "<tool_call>\n" + specJSON + "\n</tool_call>",
		want: llamaMsg{content: helloUp, calls: []chat.FunctionCall{special}}},
	{name: "function=", input: "<function=special_function>{\"arg1\": 1}</function>", want: callOnly},
	{name: "function name=", input: "<function name=\"special_function\">\n{\"arg1\": 1}\n</function>", want: callOnly},
	{name: "tool wrapper", input: "<tool>\n  " + specJSON + "\n</tool>", want: callOnly},
	{name: "tools wrapper", input: "<tools>\n  " + specJSON + "\n</tools>", want: callOnly},
	{name: "response wrapper", input: "<response>\n  " + specJSON + "\n</response>", want: callOnly},
	{name: "xml fence around response", input: "```xml\n<response>\n    " + specJSON + "\n</response>\n```", want: callOnly},
	{name: "xml fence", input: "```xml\n  " + specJSON + "\n```", want: callOnly},
	{name: "plain fence indented", input: "```\n  " + specJSON + "\n```", want: callOnly},
	{name: "plain fence", input: "```\n" + specJSON + "\n```", want: callOnly},
	{name: "json fence", input: "```json\n  " + specJSON + "\n```", want: callOnly},
	{name: "json fence around function_call", input: "```json\n\n                    <function_call> " + specJSON + " \n                    </function_call> \n``` ", want: callOnly},
	{name: "json wrapper", input: "<json>\n  " + specJSON + "\n</json>", want: callOnly},
	{name: "xml wrapper multiline", input: "<xml>\n  {\n    \"name\": \"special_function\", \"arguments\": {\"arg1\": 1}\n  }\n</xml>", want: callOnly},
	{name: "JSON wrapper upper case", input: "<JSON>\n  " + specJSON + "\n</JSON>", want: callOnly},
	{name: "bare object", input: specJSON, want: callOnly},
	{name: "bare object multiline", input: "{\n  \"name\": \"special_function\", \"arguments\": {\"arg1\": 1}}", want: callOnly},
	{name: "two tool_calls", input: "<tool_call>\n" + specJSON + "\n</tool_call>\n<tool_call>\n{\"name\": \"python\", \"arguments\": {\"code\":\"print('hello')\"}}\n</tool_call>",
		want: llamaMsg{calls: []chat.FunctionCall{special, pyHello}}},
	{name: "two function= tags", input: "<function=special_function>{\"arg1\": 1}</function>\n<function=python>{\"code\":\"print('hello')\"}</function>",
		want: llamaMsg{calls: []chat.FunctionCall{special, pyHello}}},
	{name: "not a tool call", input: "This is not a tool call:\n" + specJSON,
		want:    llamaMsg{content: "This is not a tool call:", calls: []chat.FunctionCall{special}},
		differs: "by design: a bare object after text is a mention, kept as content"},
	{name: "content only", input: helloUp, want: llamaMsg{content: helloUp}},
	{name: "think without reasoning format", input: "<think>I'm\nthinking</think>" + helloUp,
		want: llamaMsg{content: "<think>I'm\nthinking</think>" + helloUp}},
	{name: "think", input: "<think>I'm\nthinking</think>" + helloUp, reasoning: true,
		want: llamaMsg{content: helloUp, reasoning: "I'm\nthinking"}},
	{name: "think partial", input: "<think>I'm\nthinking</think>" + helloUp, partial: true, reasoning: true,
		want: llamaMsg{content: helloUp, reasoning: "I'm\nthinking"}},
	{name: "think in content, calls off, empty fence", input: "<think>I'm\nthinking</think>" + helloUp + "\n```json\n{}```", reasoning: true, inContent: true, noCalls: true,
		want: llamaMsg{content: "<think>I'm\nthinking</think>" + helloUp + "\n```json\n{}```"}},
	{name: "think in content, empty fence, partial", input: "<think>I'm\nthinking</think>" + helloUp + "\n```json\n{}```", partial: true, reasoning: true, inContent: true,
		want:    llamaMsg{content: "<think>I'm\nthinking</think>" + helloUp + "\n```json\n{}"},
		differs: "a stream snapshot: llama.cpp holds back a closing fence that could still start a call"},
	{name: "unopened think", input: "I'm\nthinking</think>" + helloUp, reasoning: true,
		want: llamaMsg{content: "I'm\nthinking</think>" + helloUp}},
	{name: "unopened think, forced open", input: "I'm\nthinking</think>" + helloUp, reasoning: true, forcedOpen: true,
		want: llamaMsg{content: helloUp, reasoning: "I'm\nthinking"}},
	{name: "tool_call inside unclosed think", input: "<think><tool_call>nah uhg</tool_call>", reasoning: true,
		want: llamaMsg{reasoning: "<tool_call>nah uhg</tool_call>"}},
}

// TestLlamaCppHermes runs llama.cpp's Hermes 2 Pro parse cases through
// loop's Hermes parser and Fixer, and pins which agree, with recovery and
// without: the file lists each case and the totals.
func TestLlamaCppHermes(t *testing.T) {
	tools, err := chat.ParseTools([]byte(llamaTools))
	if err != nil {
		t.Fatal(err)
	}
	v, err := validate.New(tools)
	if err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	agree, agreeOff := 0, 0
	for _, tc := range llamaCases {
		t.Run(tc.name, func(t *testing.T) {
			got := llamaParse(t, tools, v, tc, false)
			diff := compareLlama(tc, got)
			if (diff == "") != (tc.differs == "") {
				t.Errorf("Parse+Fix(%q) = %+v; llama.cpp wants %+v (%s; the table says %q)", tc.input, got, tc.want, diff, tc.differs)
			}
			if diff == "" {
				agree++
				fmt.Fprintf(&report, "agrees   %s\n", tc.name)
			} else {
				fmt.Fprintf(&report, "differs  %s: %s\n", tc.name, tc.differs)
			}
			if compareLlama(tc, llamaParse(t, tools, v, tc, true)) == "" {
				agreeOff++
			}
		})
	}
	fmt.Fprintf(&report, "\nloop agrees with llama.cpp on %d of %d Hermes 2 Pro cases (%d without recovery)\n", agree, len(llamaCases), agreeOff)
	golden.Check(t, "agreement.txt", report.String())
}

// llamaParse reads a case as loop does: the Hermes parser, then a Fixer
// that repairs and, unless off, recovers.
func llamaParse(t *testing.T, tools []chat.Tool, v *validate.Validator, tc llamaCase, recoveryOff bool) llamaMsg {
	t.Helper()
	f, err := callformat.NewWithOptions("hermes", tools, callformat.Options{ReasoningOpen: tc.forcedOpen, NoCalls: tc.noCalls})
	if err != nil {
		t.Fatal(err)
	}
	fx := Fixer{Format: f, Check: Validates(v), NoRecovery: recoveryOff || tc.noCalls}
	p, _ := fx.Fix(tc.input, f.Parse(tc.input))
	m := llamaMsg{content: p.Content, reasoning: p.Reasoning}
	if (!tc.reasoning || tc.inContent) && p.Reasoning != "" {
		m.content, m.reasoning = "<think>"+p.Reasoning+"</think>"+p.Content, ""
	}
	for _, c := range p.Calls {
		m.calls = append(m.calls, c.Function)
	}
	return m
}

// compareLlama compares as llama.cpp's assert_msg_equals does, with
// content and reasoning trimmed (loop trims them) and arguments compared
// as JSON values. It returns "" when they agree.
func compareLlama(tc llamaCase, got llamaMsg) string {
	trim := func(s string) string { return strings.TrimSpace(s) }
	switch {
	case trim(got.content) != trim(tc.want.content):
		return fmt.Sprintf("content %q, want %q", got.content, tc.want.content)
	case trim(got.reasoning) != trim(tc.want.reasoning):
		return fmt.Sprintf("reasoning %q, want %q", got.reasoning, tc.want.reasoning)
	case len(got.calls) != len(tc.want.calls):
		return fmt.Sprintf("%d calls, want %d", len(got.calls), len(tc.want.calls))
	}
	for i, c := range got.calls {
		w := tc.want.calls[i]
		if c.Name != w.Name || normalJSON(c.Arguments) != normalJSON(w.Arguments) {
			return fmt.Sprintf("call %d: %s %s, want %s %s", i, c.Name, c.Arguments, w.Name, w.Arguments)
		}
	}
	return ""
}

func normalJSON(s string) string {
	var v any
	if json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}
