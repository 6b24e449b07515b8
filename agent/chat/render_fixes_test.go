package chat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// renderMessages parses a JSON conversation as ParseMessages reads a
// request and renders it with a template of the conformance set.
func renderMessages(t *testing.T, template, messages string) string {
	t.Helper()
	msgs, err := ParseMessages([]byte(messages))
	if err != nil {
		t.Fatalf("ParseMessages() = %v", err)
	}
	out, err := loadTemplate(t, template, "<s>", "</s>").Render(RenderInput{Messages: msgs, Tools: seedTools(t), Now: seedDay})
	if err != nil {
		t.Fatalf("Render() = %v", err)
	}
	return out
}

// TestRenderKeepsNumberText: arguments the template reads as an object are
// written back with each number's text as the model wrote it, through
// tojson (Qwen 2.5, Llama 3.1) and through |string (Seed-OSS). llama.cpp
// writes 1.0 as 1 and 100000.0 as 100000, and the history no longer
// matches what the model generated.
func TestRenderKeepsNumberText(t *testing.T) {
	const args = `{"ratio": 1.0, "limit": 100000.0, "eps": 1e-7, "n": 3, "big": 12345678901234567890, "list": [2.50, -0.0]}`
	conv := `[{"role": "user", "content": "Go."}, {"role": "assistant", "content": null, "tool_calls": [
		{"id": "call0abc1", "type": "function", "function": {"name": "read_file", "arguments": ` + QuoteJSON(args) + `}}]}]`
	tests := []struct {
		name, template string
		want           []string
	}{
		{"tojson", "Qwen-Qwen2.5-7B-Instruct", []string{args}},
		{"tojson parameters", "meta-llama-Llama-3.1-8B-Instruct", []string{`"parameters": ` + args}},
		{"string filter", "ByteDance-Seed-OSS", []string{"<parameter=ratio>1.0</parameter>", "<parameter=limit>100000.0</parameter>",
			"<parameter=eps>1e-7</parameter>", "<parameter=n>3</parameter>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := renderMessages(t, tt.template, conv)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("Render() lacks %s:\n%s", w, got)
				}
			}
		})
	}
}

// TestNumberTextsAmbiguous: one value written two ways in one render is
// printed the default way, since either text could be meant.
func TestNumberTextsAmbiguous(t *testing.T) {
	nums := numberTexts{}
	v, err := decodeNumbers([]byte(`[1.0, 1.00, 2.50]`), nums)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := toJSON(v, nums, -1, ", ", ": "), `[1, 1, 2.50]`; got != want {
		t.Errorf("toJSON() = %s, want %s", got, want)
	}
}

// TestTypedContent: content as typed text parts is accepted; a template
// that takes only strings gets the texts joined by newlines, as
// llama-server joins them, and one that reads parts gets the parts.
func TestTypedContent(t *testing.T) {
	conv := `[{"role": "user", "content": [{"type": "text", "text": "What is in"}, {"type": "text", "text": "pom.xml?"}]}]`
	tests := []struct {
		name, template, want string
	}{
		{"joined for a string template", "Qwen-Qwen2.5-7B-Instruct", "<|im_start|>user\nWhat is in\npom.xml?<|im_end|>"},
		{"parts for a typed template", "Mistral-Small-3.2-24B-Instruct-2506", "[INST]What is inpom.xml?[/INST]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := renderMessages(t, tt.template, conv); !strings.Contains(got, tt.want) {
				t.Errorf("Render() = %q, want it to contain %q", got, tt.want)
			}
		})
	}
	if _, err := ParseMessages([]byte(`[{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}]`)); err == nil ||
		!strings.Contains(err.Error(), "image_url") {
		t.Errorf("ParseMessages(image part) = %v, want an error naming the type", err)
	}
}

// TestNullContent: a call message whose content is null reaches the
// template as none, so DeepSeek R1-Distill, which writes calls only then,
// writes the call.
func TestNullContent(t *testing.T) {
	conv := `[{"role": "user", "content": "What is in pom.xml?"}, {"role": "assistant", "content": null, "tool_calls": [
		{"id": "call0abc1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"pom.xml\"}"}}]}]`
	want := "<｜Assistant｜><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file\n```json\n{\"path\": \"pom.xml\"}\n```<｜tool▁call▁end｜>"
	if got := renderMessages(t, "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", conv); !strings.Contains(got, want) {
		t.Errorf("Render() = %q, want it to contain %q", got, want)
	}
}

// TestMessageJSON: a message's JSON keeps its content's form.
func TestMessageJSON(t *testing.T) {
	in := `[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},{"role":"user","content":"c"}]`
	msgs, err := ParseMessages([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, string(out)); diff != "" {
		t.Errorf("json.Marshal(ParseMessages(x)) (-x +got):\n%s", diff)
	}
}

// TestCommandR7BToolPlan: Command R7B's template writes a call's plan from
// message.tool_plan; the reasoning of a message with calls is that plan,
// as llama.cpp renders it, instead of an empty thinking block.
func TestCommandR7BToolPlan(t *testing.T) {
	conv := `[{"role": "user", "content": "What is in pom.xml?"}, {"role": "assistant", "content": null, "reasoning_content": "I will read pom.xml.", "tool_calls": [
		{"id": "0", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"pom.xml\"}"}}]},
		{"role": "tool", "tool_call_id": "0", "content": "<project/>"}]`
	got := renderMessages(t, "CohereForAI-c4ai-command-r7b-12-2024-tool_use", conv)
	if want := "<|START_THINKING|>I will read pom.xml.<|END_THINKING|>"; !strings.Contains(got, want) {
		t.Errorf("Render() lacks %s:\n%s", want, got)
	}
}
