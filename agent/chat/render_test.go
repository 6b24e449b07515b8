package chat

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ardanlabs/jinja"
	"github.com/google/go-cmp/cmp"
)

// seedTool is the read_file tool of seed 004 Example 1, in its key order.
const seedTool = `{"type": "function", "function": {"name": "read_file", "description": "Read a text file from the workspace", "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "Path relative to the workspace root"}}, "required": ["path"]}}}`

// seedBOS is the BOS (and EOS) text of the seed's tiny Qwen2-vocabulary
// model.
const seedBOS = "<|endoftext|>"

// seedDay is the day of the seed's runs: "Today Date: 03 Oct 2026".
func seedDay() time.Time { return time.Date(2026, time.October, 3, 10, 30, 0, 0, time.UTC) }

func seedTools(t testing.TB) []Tool {
	t.Helper()
	tools, err := ParseTools([]byte("[" + seedTool + "]"))
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

var seedQuestion = Message{Role: "user", Content: "What is in pom.xml?"}

// seedRoundTrip is the history of seed 004 Example 7.
var seedRoundTrip = []Message{
	seedQuestion,
	{Role: "assistant", ToolCalls: []ToolCall{{ID: "call0abc1", Type: "function",
		Function: FunctionCall{Name: "read_file", Arguments: `{"path": "pom.xml"}`}}}},
	{Role: "tool", ToolCallID: "call0abc1", Content: "<project>demo</project>"},
}

// TestRenderSeed checks renders character for character against the
// prompts llama-server printed in seed 004 (/work/shared/seeds/
// 004_a651b790e8b03041.txt), copied verbatim into testdata/TestRenderSeed:
//   - example1-qwen25-tools.txt: lines 33-51 (Example 1, /apply-template);
//     example1-qwen25-notools.txt is the same request without tools, from
//     llama/testdata/TestSeedTokenCounts.
//   - example3-*.txt: lines 175-208 (Llama 3.1; the last line is the blank
//     one of the template's final "\n\n"), 211 (Mistral Nemo, no final
//     newline) and 215-226 (Hermes 3). The seed removed the BOS
//     <|endoftext|> the renders start with.
//   - example7-*.txt: "the part of each prompt after the user message",
//     lines 601-609 (Qwen 2.5), 612-619 (Hermes 3), 622-627 (Llama 3.1)
//     and 629 (Mistral Nemo).
func TestRenderSeed(t *testing.T) {
	tests := []struct {
		name     string
		template string
		messages []Message
		tools    bool
		want     string // file in testdata/TestRenderSeed
		bos      bool   // the render starts with seedBOS, removed from the listing
		suffix   bool   // the listing is the end of the render
	}{
		{"example1-qwen25-tools", "Qwen-Qwen2.5-7B-Instruct", []Message{seedQuestion}, true, "example1-qwen25-tools.txt", false, false},
		{"example1-qwen25-notools", "Qwen-Qwen2.5-7B-Instruct", []Message{seedQuestion}, false, "example1-qwen25-notools.txt", false, false},
		{"example3-llama31", "meta-llama-Llama-3.1-8B-Instruct", []Message{seedQuestion}, true, "example3-llama31.txt", true, false},
		{"example3-mistral-nemo", "mistralai-Mistral-Nemo-Instruct-2407", []Message{seedQuestion}, true, "example3-mistral-nemo.txt", true, false},
		{"example3-hermes3", "NousResearch-Hermes-3-Llama-3.1-8B-tool_use", []Message{seedQuestion}, true, "example3-hermes3.txt", true, false},
		{"example7-qwen25", "Qwen-Qwen2.5-7B-Instruct", seedRoundTrip, true, "example7-qwen25.txt", false, true},
		{"example7-hermes3", "NousResearch-Hermes-3-Llama-3.1-8B-tool_use", seedRoundTrip, true, "example7-hermes3.txt", true, true},
		{"example7-llama31", "meta-llama-Llama-3.1-8B-Instruct", seedRoundTrip, true, "example7-llama31.txt", true, true},
		{"example7-mistral-nemo", "mistralai-Mistral-Nemo-Instruct-2407", seedRoundTrip, true, "example7-mistral-nemo.txt", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl := loadTemplate(t, tt.template, seedBOS, seedBOS)
			in := RenderInput{Messages: tt.messages, AddGenerationPrompt: true, Now: seedDay}
			if tt.tools {
				in.Tools = seedTools(t)
			}
			got, err := tmpl.Render(in)
			if err != nil {
				t.Fatalf("Render() = %v", err)
			}
			if tt.bos {
				if !strings.HasPrefix(got, seedBOS) {
					t.Fatalf("Render() = %q, want it to start with %q", got, seedBOS)
				}
				got = strings.TrimPrefix(got, seedBOS)
			}
			want := readTestdata(t, "TestRenderSeed/"+tt.want)
			if tt.suffix {
				if !strings.HasSuffix(got, want) {
					t.Fatalf("Render() = %q, want it to end with %q", got, want)
				}
				got = got[len(got)-len(want):]
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Render() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// renderVars renders an inline template.
func renderVars(t *testing.T, src string, in RenderInput) string {
	t.Helper()
	tmpl, err := NewTemplate(src, "<s>", "</s>")
	if err != nil {
		t.Fatalf("NewTemplate(%q) = %v", src, err)
	}
	out, err := tmpl.Render(in)
	if err != nil {
		t.Fatalf("Render(%q) = %v", src, err)
	}
	return out
}

func TestRenderVariables(t *testing.T) {
	fixed := func() time.Time { return time.Date(2026, time.October, 3, 7, 5, 9, 0, time.UTC) }
	user := []Message{{Role: "user", Content: "hi"}}
	tests := []struct {
		name string
		src  string
		in   RenderInput
		want string
	}{
		{"tokens", "{{ bos_token }}|{{ eos_token }}", RenderInput{}, "<s>|</s>"},
		{"no tools is undefined", "{{ tools is defined }}", RenderInput{Messages: user}, "False"},
		{"no generation prompt is undefined", "{{ add_generation_prompt is defined }}", RenderInput{}, "False"},
		{"generation prompt", "{{ add_generation_prompt }}", RenderInput{AddGenerationPrompt: true}, "True"},
		{"enable_thinking default", "{{ enable_thinking }}", RenderInput{}, "True"},
		{"dates", "{{ date_string }}|{{ datetime }}|{{ strftime_now('%Y-%m-%d %H:%M:%S %B %A') }}",
			RenderInput{Now: fixed}, "03 Oct 2026|Oct 03 2026|2026-10-03 07:05:09 October Saturday"},
		{"extra", `{{ enable_thinking }} {{ opts | tojson }}`,
			RenderInput{Extra: json.RawMessage(`{"enable_thinking": false, "opts": {"z": 1, "a": [2.5, null]}}`)},
			`False {"z": 1, "a": [2.5, null]}`},
		{"extra overrides", "{{ bos_token }}", RenderInput{Extra: json.RawMessage(`{"bos_token": "B"}`)}, "B"},
		{"tool shape", "{{ tools | tojson }}",
			RenderInput{Tools: []Tool{{Raw: json.RawMessage(`{"function": {"strict": true, "parameters": {"z": 1, "a": 2}, "name": "f"}, "type": "function"}`)}}},
			`[{"type": "function", "function": {"name": "f", "description": "", "parameters": {"z": 1, "a": 2}}}]`},
		// The template prints the arguments, so it gets them as an object.
		{"message shape", "{{ messages | tojson }}", RenderInput{Messages: []Message{
			{Role: "assistant", ReasoningContent: "r", ToolCalls: []ToolCall{{ID: "c1", Type: "function", Function: FunctionCall{Name: "f", Arguments: `{"b": 1, "a": 2}`}}}},
			{Role: "tool", ToolCallID: "c1", Name: "f", Content: "ok"},
			{Role: "developer", Content: "d"}}},
			`[{"role": "assistant", "content": "", "reasoning_content": "r", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": {"b": 1, "a": 2}}, "id": "c1"}]}, ` +
				`{"role": "tool", "content": "ok", "name": "f", "tool_call_id": "c1"}, {"role": "system", "content": "d"}]`},
		{"tojson indent", "{{ x | tojson(indent=2) }}", RenderInput{Extra: json.RawMessage(`{"x": {"b": [1, {}], "a": "<&>", "c": []}}`)},
			"{\n  \"b\": [\n    1,\n    {}\n  ],\n  \"a\": \"<&>\",\n  \"c\": []\n}"},
		{"tojson escapes", `{{ x | tojson }}`, RenderInput{Extra: json.RawMessage(`{"x": "é\"\\\n\u0001\u2028"}`)}, "\"é\\\"\\\\\\n\\u0001\u2028\""},
		{"tojson separators", `{{ x | tojson(separators=(',', ':')) }}`, RenderInput{Extra: json.RawMessage(`{"x": {"a": [1, 2]}}`)}, `{"a":[1,2]}`},
		{"tojson function", `{{ tojson(x) }}`, RenderInput{Extra: json.RawMessage(`{"x": [1.0, 1e21, 0.1]}`)}, `[1, 1e+21, 0.1]`},
		{"final newline dropped", "x\n", RenderInput{}, "x"},
		{"line ends", "a\r\nb\rc", RenderInput{}, "a\nb\nc"},
		{"big integers stay integers", `{{ x | tojson }}`, RenderInput{Extra: json.RawMessage(`{"x": 9007199254740993}`)}, `9007199254740993`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := renderVars(t, tt.src, tt.in); got != tt.want {
				t.Errorf("Render(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}

// TestRenderArguments checks that arguments reach a template as an object
// only when it reads them as one.
func TestRenderArguments(t *testing.T) {
	msgs := []Message{{Role: "user", Content: "u"}, {Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Type: "function",
		Function: FunctionCall{Name: "f", Arguments: `{"z": 1, "a": 2}`}}}}}
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"object", `{% for m in messages %}{% for c in m.tool_calls %}{{ c.function.arguments | tojson }}{% endfor %}{% endfor %}`, `{"z": 1, "a": 2}`},
		{"string", `{% for m in messages %}{% for c in m.tool_calls %}{{ c.function.arguments is string }}{% endfor %}{% endfor %}`, `True`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := renderVars(t, tt.src, RenderInput{Messages: msgs}); got != tt.want {
				t.Errorf("Render(%q) = %q, want %q", tt.src, got, tt.want)
			}
		})
	}
}

func TestRenderErrors(t *testing.T) {
	objectArgs := `{% for m in messages %}{{ m.content }}{% for c in m.tool_calls %}{{ c.function.arguments | tojson }}{% endfor %}{% endfor %}`
	tests := []struct {
		name string
		src  string
		in   RenderInput
		op   string
		msg  string // in the error text
	}{
		{"compile", "{% if x %}unclosed", RenderInput{}, "compile template", "compile template: chat template"},
		{"raise", "{{ raise_exception('Tool call IDs should be alphanumeric strings with length 9!') }}", RenderInput{}, "render", "length 9!"},
		{"extra not object", "x", RenderInput{Extra: json.RawMessage(`[1]`)}, "render", "not a JSON object"},
		{"extra not json", "x", RenderInput{Extra: json.RawMessage(`{"a":`)}, "render", "extra variables"},
		{"bad tool", "x", RenderInput{Tools: []Tool{{Raw: json.RawMessage(`{"type": "function"}`)}}}, "render", "tool 0"},
		{"bad arguments", objectArgs, RenderInput{Messages: []Message{{Role: "assistant", ToolCalls: []ToolCall{{Function: FunctionCall{Name: "f", Arguments: "{not json"}}}}}}, "render", "arguments are not JSON"},
		{"strftime type", "{{ strftime_now(1) }}", RenderInput{}, "render", "strftime_now"},
		{"tojson sort_keys", "{{ 1 | tojson(sort_keys=true) }}", RenderInput{}, "render", "sort_keys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := NewTemplate(tt.src, "", "")
			if err == nil {
				_, err = tmpl.Render(tt.in)
			}
			var e *Error
			if !errors.As(err, &e) || e.Op != tt.op || e.Subject == "" || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Render(%q) = %v, want *Error{Op: %q} containing %q", tt.src, err, tt.op, tt.msg)
			}
		})
	}
}

func TestRenderDecodeJSON(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // as tojson writes it; "" for an error
	}{
		{"order", `{"z": 1, "a": {"y": true, "b": null}}`, `{"z": 1, "a": {"y": true, "b": null}}`},
		{"numbers", `[1, -0, 1.5, 2e3, 12345678901234567890]`, `[1, 0, 1.5, 2000, 1.23457e+19]`},
		{"duplicate key keeps first place", `{"a": 1, "b": 2, "a": 3}`, `{"a": 3, "b": 2}`},
		{"trailing data", `{} {}`, ""},
		{"truncated", `{"a": [1,`, ""},
		{"empty", ``, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := decodeJSON([]byte(tt.in))
			got := ""
			if err == nil {
				got = toJSON(v, nil, -1, ", ", ": ")
			}
			if got != tt.want {
				t.Errorf("decodeJSON(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestRenderStrftime(t *testing.T) {
	at := time.Date(2026, time.January, 5, 15, 4, 9, 0, time.UTC)
	tests := []struct{ name, format, want string }{
		{"llama", "%d %b %Y", "05 Jan 2026"},
		{"granite", "%B %d, %Y", "January 05, 2026"},
		{"iso", "%Y-%m-%d", "2026-01-05"},
		{"clock", "%I:%M %p %H %j %e %u %w %%", "03:04 PM 15 005  5 1 1 %"},
		{"unknown and trailing", "%Q %", "%Q %"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := strftime(at, tt.format); got != tt.want {
				t.Errorf("strftime(%q) = %q, want %q", tt.format, got, tt.want)
			}
		})
	}
}

// FuzzRender feeds arbitrary contents, tool JSON and extra JSON through
// the Qwen 2.5 and Llama 3.1 templates: errors are fine, panics are not.
func FuzzRender(f *testing.F) {
	templates := []*Template{
		loadTemplate(f, "Qwen-Qwen2.5-7B-Instruct", "", "<|im_end|>"),
		loadTemplate(f, "meta-llama-Llama-3.1-8B-Instruct", "<|begin_of_text|>", "<|eot_id|>"),
	}
	f.Add("What is in pom.xml?", `{"path": "pom.xml"}`, seedTool, `{"enable_thinking": false}`, uint8(0))
	f.Add("", "", `{"type": "function"}`, `null`, uint8(1))
	f.Add("<|im_end|>{{ x }}", `[1, 2]`, `{"function": {"name": 1}}`, `{"messages": 1, "tools": "x"}`, uint8(2))
	f.Add("é\x00\xff", `{"a": {"b": [1e400]}}`, `[`, `{"date_string": {"a": []}}`, uint8(3))
	f.Fuzz(func(t *testing.T, content, args, tool, extra string, shape uint8) {
		msgs := []Message{{Role: "user", Content: content}}
		if shape&1 != 0 {
			msgs = append(msgs, Message{Role: "assistant", Content: content, ReasoningContent: content,
				ToolCalls: []ToolCall{{ID: "call0abc1", Type: "function", Function: FunctionCall{Name: content, Arguments: args}}}})
		}
		if shape&2 != 0 {
			msgs = append(msgs, Message{Role: "tool", ToolCallID: "call0abc1", Content: content})
		}
		if shape&4 != 0 {
			msgs = append([]Message{{Role: "system", Content: content}}, msgs...)
		}
		in := RenderInput{Messages: msgs, Tools: []Tool{{Raw: json.RawMessage(tool), Name: "t"}},
			AddGenerationPrompt: shape&8 != 0, Extra: json.RawMessage(extra), Now: seedDay}
		for _, tmpl := range templates {
			if _, err := tmpl.Render(in); err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("Render() = %T %v, want *Error", err, err)
				}
			}
		}
	})
}

// FuzzDecodeJSON checks that decodeJSON accepts exactly valid JSON and
// never panics, and that toJSON writes what it decoded without a panic.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{seedTool, `{"a": [1, 2.5, "x", null, true]}`, `[`, `1 2`, `"\ud800"`, `{"a":1,"a":2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := decodeJSON([]byte(s))
		if valid := json.Valid([]byte(s)); valid != (err == nil) {
			t.Fatalf("decodeJSON(%q) = %v, json.Valid = %v", s, err, valid)
		}
		if err == nil {
			_ = toJSON(v, nil, 2, ",", ": ")
			if again, err := decodeJSON([]byte(toJSON(v, nil, -1, ", ", ": "))); err == nil && !v.IsFloat() && !hasFloat(v) && !again.Equals(v) {
				t.Fatalf("toJSON round trip of %q changed the value", s)
			}
		}
	})
}

// hasFloat reports whether v holds a float, which toJSON rounds to six
// digits.
func hasFloat(v jinja.Value) bool {
	switch {
	case v.IsFloat():
		return true
	case v.IsList():
		for _, item := range v.AsList().Items {
			if hasFloat(item) {
				return true
			}
		}
	case v.IsDict():
		for _, item := range v.AsDict().Data {
			if hasFloat(item) {
				return true
			}
		}
	}
	return false
}

// TestRenderWorkarounds checks the message rewrites llama-server applies
// for some templates.
func TestRenderWorkarounds(t *testing.T) {
	call := []ToolCall{{ID: "call0abc1", Type: "function", Function: FunctionCall{Name: "read_file", Arguments: `{"path": "pom.xml"}`}}}
	tests := []struct {
		name     string
		template string
		messages []Message
		want     string // in the render
	}{
		// No system role: the system text goes in front of the first user
		// message, after a newline.
		{"system merged", "google-gemma-2-2b-it", []Message{{Role: "system", Content: "Be brief."}, seedQuestion},
			"<start_of_turn>user\nBe brief.\nWhat is in pom.xml?<end_of_turn>\n"},
		{"developer is system", "Qwen-Qwen2.5-7B-Instruct", []Message{{Role: "developer", Content: "Be brief."}, seedQuestion},
			"<|im_start|>system\nBe brief.<|im_end|>\n"},
		// Devstral gets assistant content as parts. llama-server puts the
		// reasoning first as a thinking part, and the template, which
		// writes content[0].text, drops the text; the reasoning is left
		// out instead, as the template cannot show it.
		{"ministral reasoning keeps content", "unsloth-mistral-Devstral-Small-2507", []Message{seedQuestion, {Role: "assistant", Content: "Done.", ReasoningContent: "r"}},
			"[INST]What is in pom.xml?[/INST]Done.</s>"},
		{"ministral text part", "unsloth-mistral-Devstral-Small-2507", []Message{seedQuestion, {Role: "assistant", Content: "Done."}},
			"[INST]What is in pom.xml?[/INST]Done.</s>"},
		// gpt-oss reads the reasoning of a call from "thinking".
		{"gpt-oss thinking", "openai-gpt-oss-120b", []Message{seedQuestion, {Role: "assistant", ReasoningContent: "Read it.", ToolCalls: call}},
			"<|start|>assistant<|channel|>analysis<|message|>Read it.<|end|>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := loadTemplate(t, tt.template, "<bos>", "</s>").Render(RenderInput{Messages: tt.messages, Now: seedDay})
			if err != nil {
				t.Fatalf("Render() = %v", err)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("Render() = %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

// TestRenderClock checks that the templates that print today's date take
// it from RenderInput.Now.
func TestRenderClock(t *testing.T) {
	tests := []struct {
		template string
		want     string
	}{
		{"meta-llama-Llama-3.1-8B-Instruct", "Today Date: 03 Oct 2026\n"},
		{"meta-llama-Llama-3.2-3B-Instruct", "Today Date: 03 Oct 2026\n"},
		{"ibm-granite-granite-3.3-2B-Instruct", "Today's Date: October 03, 2026."},
		{"Mistral-Small-3.2-24B-Instruct-2506", "The current date is 2026-10-03."},
		{"openai-gpt-oss-120b", "Current date: 2026-10-03\n"},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			got, err := loadTemplate(t, tt.template, "", "").Render(RenderInput{Messages: []Message{seedQuestion}, Now: seedDay})
			if err != nil {
				t.Fatalf("Render() = %v", err)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("Render() = %q, want it to contain %q", got, tt.want)
			}
		})
	}
}

// TestRenderConcurrent renders one template from many goroutines, the
// first render computing the capabilities.
func TestRenderConcurrent(t *testing.T) {
	tmpl := loadTemplate(t, "Qwen-Qwen2.5-7B-Instruct", "", "")
	in := RenderInput{Messages: seedRoundTrip, Tools: seedTools(t), AddGenerationPrompt: true}
	want := readTestdata(t, "TestRenderSeed/example7-qwen25.txt")
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			got, err := tmpl.Render(in)
			if err == nil && !strings.HasSuffix(got, want) {
				err = errors.New("render differs: " + got)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}
