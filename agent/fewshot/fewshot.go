// Package fewshot handles few-shot examples: short demonstrations (a
// question, the right call, its result, the answer) placed before the
// real conversation, and their two costs. They cost prompt tokens on
// every request unless they sit in the cached prefix, after the system
// prompt and the tools, where they never change; and a small model may
// copy their values instead of the user's.
//
//	shots := fewshot.Shots{{User: "Which Java version does the build use?",
//		Call: readCall, Result: "1| plugins { id 'java' } ...", Answer: "Java 21."}}
//	history := append(shots.Messages(), chat.Message{Role: "user", Content: task})
//	for _, c := range shots.Copied(task, call) {
//		// c.Value came from an example, not from the task: flag the call
//	}
//
// Use example values that exist in no real workspace (an "example/"
// prefix), so that a copied value fails fast with "file not found" instead
// of reading the wrong file.
package fewshot

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/chat"
)

// Shot is one few-shot example.
type Shot struct {
	User   string        // the question
	Call   chat.ToolCall // the call that answers it; Arguments as JSON text
	Result string        // the call's result
	Answer string        // the final answer
}

// Shots are the examples, in order.
type Shots []Shot

// Messages returns the shots as chat messages for any template: per shot
// a user message, an assistant message with the call, the tool result and
// the assistant's answer. A call without an ID gets "fewshot-N".
func (s Shots) Messages() []chat.Message {
	var out []chat.Message
	for i, shot := range s {
		call := shot.Call
		if call.ID == "" {
			call.ID = fmt.Sprintf("fewshot-%d", i+1)
		}
		if call.Type == "" {
			call.Type = "function"
		}
		out = append(out,
			chat.Message{Role: "user", Content: shot.User},
			chat.Message{Role: "assistant", ToolCalls: []chat.ToolCall{call}},
			chat.Message{Role: "tool", ToolCallID: call.ID, Name: call.Function.Name, Content: shot.Result},
			chat.Message{Role: "assistant", Content: shot.Answer})
	}
	return out
}

// Copy is an argument value of a call that came from an example.
type Copy struct {
	Argument string // the argument's name, "path"
	Value    string // its value, "example/build.gradle"
}

// Copied returns the string arguments of call, in sorted order, whose
// value is a string argument of an example's call and does not occur in
// the request.
func (s Shots) Copied(request string, call chat.ToolCall) []Copy {
	var fromShots []string
	for _, shot := range s {
		fromShots = slices.AppendSeq(fromShots, maps.Values(stringArgs(shot.Call.Function.Arguments)))
	}
	args := stringArgs(call.Function.Arguments)
	var out []Copy
	for _, name := range slices.Sorted(maps.Keys(args)) {
		v := args[name]
		if v != "" && slices.Contains(fromShots, v) && !strings.Contains(request, v) {
			out = append(out, Copy{name, v})
		}
	}
	return out
}

// stringArgs returns the top-level string arguments of JSON arguments.
func stringArgs(arguments string) map[string]string {
	var raw map[string]json.RawMessage
	json.Unmarshal([]byte(arguments), &raw)
	out := map[string]string{}
	for k, r := range raw {
		var s string
		if json.Unmarshal(r, &s) == nil {
			out[k] = s
		}
	}
	return out
}

// Default are two examples with loop's tool names: a read_file of
// "example/build.gradle" and a shell run of "mvn -q test". Their values
// exist in no real workspace, so a copied one fails fast, and the copy
// check catches it first.
func Default() Shots {
	return Shots{
		{User: "Which Java version does the build use?",
			Call:   chat.ToolCall{Function: chat.FunctionCall{Name: "read_file", Arguments: `{"path": "example/build.gradle"}`}},
			Result: "1| plugins { id 'java' }\n2| java { toolchain { languageVersion = JavaLanguageVersion.of(21) } }",
			Answer: "The build uses Java 21 (line 2 of example/build.gradle)."},
		{User: "Do the tests pass?",
			Call:   chat.ToolCall{Function: chat.FunctionCall{Name: "shell", Arguments: `{"command": "mvn -q test"}`}},
			Result: "exit code 1\n[ERROR] Tests run: 12, Failures: 1\n[ERROR] OrderTest.total:31 expected:<30> but was:<27>",
			Answer: "No. OrderTest.total fails at line 31: expected 30, got 27."},
	}
}

// fileShot is a Shot in a JSON file.
type fileShot struct {
	User string `json:"user"`
	Call struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"call"`
	Result string `json:"result"`
	Answer string `json:"answer"`
}

// Parse reads examples from JSON: an array of {"user", "call": {"name",
// "arguments"}, "result", "answer"}. Every field is required and the
// arguments must be a JSON object.
func Parse(data []byte) (Shots, error) {
	var raw []fileShot
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("few-shot examples: %w", err)
	}
	out := make(Shots, 0, len(raw))
	for i, r := range raw {
		var args map[string]any
		switch {
		case r.User == "" || r.Call.Name == "" || r.Result == "" || r.Answer == "":
			return nil, fmt.Errorf("few-shot example %d: user, call.name, result and answer are required", i+1)
		case json.Unmarshal(r.Call.Arguments, &args) != nil || args == nil:
			return nil, fmt.Errorf("few-shot example %d: call.arguments must be a JSON object, got %s", i+1, r.Call.Arguments)
		}
		out = append(out, Shot{User: r.User, Result: r.Result, Answer: r.Answer,
			Call: chat.ToolCall{Function: chat.FunctionCall{Name: r.Call.Name, Arguments: string(r.Call.Arguments)}}})
	}
	return out, nil
}
