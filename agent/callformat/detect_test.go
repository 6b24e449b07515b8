package callformat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/golden"
	"github.com/loopagent/loop/internal/testmodels"
)

// TestDetectFormat detects the call format of all 28 templates by
// rendering probes and writes the detection table (family, and the probe
// round trip that confirmed it or why it fell back) to
// testdata/TestDetectFormat/table.md. The expected families were checked
// against each template's source by hand.
func TestDetectFormat(t *testing.T) {
	want := map[string]string{
		"Qwen-Qwen2.5-7B-Instruct": "hermes",
		"Qwen-Qwen3":               "hermes",
		"Qwen-Qwen3-0.6B":          "hermes",
		"Qwen-QwQ-32B":             "hermes",
		"NousResearch-Hermes-3-Llama-3.1-8B-tool_use":   "hermes",
		"NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use": "hermes",
		"meta-llama-Llama-3.1-8B-Instruct":              "llama3",
		"meta-llama-Llama-3.2-3B-Instruct":              "llama3",
		"meta-llama-Llama-3.3-70B-Instruct":             "llama3",
		"mistralai-Mistral-Nemo-Instruct-2407":          "mistral",
		"Mistral-Small-3.2-24B-Instruct-2506":           "mistral",
		"unsloth-mistral-Devstral-Small-2507":           "mistral",
		"openai-gpt-oss-120b":                           "harmony",
		"google-gemma-2-2b-it":                          "prompt",
		"microsoft-Phi-3.5-mini-instruct":               "prompt",
		"ibm-granite-granite-3.3-2B-Instruct":           "prompt",
		// <function=read_file>{"path": ...}</function>: a JSON body, not
		// Qwen3-Coder's <parameter=...> tags.
		"meetkai-functionary-medium-v3.1":          "functionary-v3.1",
		"fireworks-ai-llama-3-firefunction-v2":     "firefunction-v2",
		"NVIDIA-Nemotron-Nano-v2":                  "nemotron-v2",
		"llama-cpp-deepseek-r1":                    "deepseek-r1",
		"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B": "deepseek-r1",
		"deepseek-ai-DeepSeek-R1-Distill-Llama-8B": "deepseek-r1",
		"deepseek-ai-DeepSeek-V3.1":                "deepseek-v3.1",
		"moonshotai-Kimi-K2":                       "kimi-k2",
		"meetkai-functionary-medium-v3.2":          "functionary-v3.2",
		// <seed:tool_call><function=...><parameter=...>: the Qwen3-Coder
		// parser would find the function but leave the <seed:tool_call>
		// wrapper as text, and its grammar would write <tool_call>.
		"ByteDance-Seed-OSS": "seed-oss",
		// <|START_ACTION|>[{"tool_call_id": "0", "tool_name": ...,
		// "parameters": ...}]<|END_ACTION|>, after an empty thinking block.
		"CohereForAI-c4ai-command-r7b-12-2024-tool_use": "command-r7b",
	}
	var table strings.Builder
	table.WriteString("| template | format | how |\n| --- | --- | --- |\n")
	for _, name := range testmodels.AllChatTemplateNames(t) {
		t.Run(name, func(t *testing.T) {
			d := Detect(loadTemplate(t, name, "<|endoftext|>", "<|endoftext|>"))
			fmt.Fprintf(&table, "| %s | %s | %s |\n", name, d.Format, strings.ReplaceAll(d.Reason, "|", `\|`))
			if w, ok := want[name]; ok && d.Format != w {
				t.Errorf("Detect(%s) = %s (%s), want %s", name, d.Format, d.Reason, w)
			}
			if d.Format != "prompt" && !strings.Contains(d.Reason, "reads it back") {
				t.Errorf("Detect(%s) = %s without a confirmed round trip: %s", name, d.Format, d.Reason)
			}
		})
	}
	golden.Check(t, "table.md", table.String())
}

// TestDetectFallback: a template whose call has a family's marker but
// that the family's parser cannot read back gets the prompt-based format,
// and the reason says why.
func TestDetectFallback(t *testing.T) {
	const head = `{%- for m in messages %}<|{{ m.role }}|>{{ m.content }}`
	tests := []struct {
		name, call, reason string
	}{
		{"hermes marker, Python body", `<tool_call>{{ c.function.name }}(probe_arg="probe_value")</tool_call>`, "the hermes parser reports invalid_json"},
		{"hermes, other arguments", `<tool_call>{"name": "{{ c.function.name }}", "arguments": {}}</tool_call>`, `the hermes parser reads it as probe_tool {}`},
		{"qwen3-coder marker, text around", `[<function={{ c.function.name }}>
<parameter=probe_arg>
probe_value
</parameter>
</function>]`, `the qwen3-coder parser leaves "[]" outside the call`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := head + `{%- for c in m.tool_calls %}` + tt.call + `{%- endfor %}{%- endfor %}{%- if add_generation_prompt %}<|assistant|>{%- endif %}`
			tmpl, err := chat.NewTemplate(src, "", "")
			if err != nil {
				t.Fatal(err)
			}
			d := Detect(tmpl)
			if d.Format != "prompt" || !strings.Contains(d.Reason, tt.reason) || !strings.Contains(d.Reason, "falling back to prompt-based") {
				t.Errorf("Detect() = %s (%s), want prompt with %q", d.Format, d.Reason, tt.reason)
			}
		})
	}
}
