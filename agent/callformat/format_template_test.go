package callformat

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
)

// TestParseTemplateRenders renders calls with the real chat templates and
// parses the assistant turn back with the template's format: what a model
// trained on the template writes is what the parser reads.
func TestParseTemplateRenders(t *testing.T) {
	pom := call("call0abc1", "read_file", `{"path":"pom.xml"}`)
	readme := call("call0abc2", "read_file", `{"path":"README.md"}`)
	tests := []struct {
		template, format string
		calls            []chat.ToolCall
		ids              bool // the template writes the ids
	}{
		{"Qwen-Qwen2.5-7B-Instruct", "hermes", []chat.ToolCall{pom, readme}, false},
		{"NousResearch-Hermes-3-Llama-3.1-8B-tool_use", "hermes", []chat.ToolCall{pom, readme}, false},
		{"NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", "hermes", []chat.ToolCall{pom, readme}, false},
		{"Qwen-Qwen3-0.6B", "hermes", []chat.ToolCall{pom, readme}, false},
		{"meta-llama-Llama-3.1-8B-Instruct", "llama3", []chat.ToolCall{pom}, false},
		{"meta-llama-Llama-3.2-3B-Instruct", "llama3", []chat.ToolCall{pom}, false},
		{"mistralai-Mistral-Nemo-Instruct-2407", "mistral", []chat.ToolCall{pom, readme}, true},
		{"Mistral-Small-3.2-24B-Instruct-2506", "mistral", []chat.ToolCall{pom, readme}, true},
		{"unsloth-mistral-Devstral-Small-2507", "mistral", []chat.ToolCall{pom, readme}, false},
		{"openai-gpt-oss-120b", "harmony", []chat.ToolCall{pom}, false},
		{"meetkai-functionary-medium-v3.1", "functionary-v3.1", []chat.ToolCall{pom, readme}, false},
		{"meetkai-functionary-medium-v3.2", "functionary-v3.2", []chat.ToolCall{pom, readme}, false},
		{"fireworks-ai-llama-3-firefunction-v2", "firefunction-v2", []chat.ToolCall{pom, readme}, false},
		{"NVIDIA-Nemotron-Nano-v2", "nemotron-v2", []chat.ToolCall{pom, readme}, false},
		{"llama-cpp-deepseek-r1", "deepseek-r1", []chat.ToolCall{pom, readme}, false},
		{"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "deepseek-r1", []chat.ToolCall{pom}, false},
		{"deepseek-ai-DeepSeek-V3.1", "deepseek-v3.1", []chat.ToolCall{pom, readme}, false},
		{"ByteDance-Seed-OSS", "seed-oss", []chat.ToolCall{pom, readme}, false},
		{"moonshotai-Kimi-K2", "kimi-k2", []chat.ToolCall{call("functions.read_file:0", "read_file", `{"path":"pom.xml"}`),
			call("functions.read_file:1", "read_file", `{"path":"README.md"}`)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.template, func(t *testing.T) {
			reply := renderedReply(t, tt.template, tt.calls)
			got := testFormat(t, tt.format).Parse(reply)
			want := Parsed{}
			for _, c := range tt.calls {
				if !tt.ids {
					c.ID = ""
				}
				want.Calls = append(want.Calls, c)
			}
			if diff := cmp.Diff(want, got, parsedOpts); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", reply, diff)
			}
			checkStream(t, func() Format { return testFormat(t, tt.format) }, reply, 1)
		})
	}
}

// renderedReply renders an assistant turn with calls and returns what
// follows the generation prompt (see replyStart), up to the end-of-turn
// token. The calls have null content where the template writes calls only
// then (R1-Distill).
func renderedReply(t *testing.T, name string, calls []chat.ToolCall) string {
	t.Helper()
	tmpl := loadTemplate(t, name, "<s>", "</s>")
	user := chat.Message{Role: "user", Content: "What is in pom.xml?"}
	prompt, err := tmpl.Render(chat.RenderInput{Messages: []chat.Message{user}, Tools: parseTools[:1], AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	assistant := chat.Message{Role: "assistant", NullContent: tmpl.NullCallContent(), ToolCalls: calls}
	full, err := tmpl.Render(chat.RenderInput{Messages: []chat.Message{user, assistant}, Tools: parseTools[:1]})
	if err != nil {
		t.Fatal(err)
	}
	start := replyStart(prompt, full)
	reply := full[start:]
	if start < len(prompt)-len("<think>\n") { // R1 and QwQ prompts end with <think>, their histories do not
		t.Fatalf("the rendered call does not follow the generation prompt:\nprompt: %q\nfull:   %q", prompt, full)
	}
	for _, end := range []string{"<|im_end|>", "<|eot_id|>", "<|eom_id|>", "</s>", "<SPECIAL_12>", "<｜end▁of▁sentence｜>", "<seed:eos>"} {
		reply, _, _ = strings.Cut(reply, end)
	}
	return reply
}
