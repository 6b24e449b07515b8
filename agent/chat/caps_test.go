package chat

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/internal/golden"
	"github.com/loopagent/loop/internal/testmodels"
)

// TestCapsSeed checks the Qwen 2.5 template against llama-server's /props
// chat_template_caps in seed 000 Example 12 (/work/shared/seeds/
// 000_27840e3b3c64dc9b.txt line 1067, copied verbatim to
// testdata/TestCapsSeed/qwen25.json), byte for byte.
func TestCapsSeed(t *testing.T) {
	got, err := json.Marshal(loadTemplate(t, "Qwen-Qwen2.5-7B-Instruct", "", "").Caps())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(readTestdata(t, "TestCapsSeed/qwen25.json"), string(got)); diff != "" {
		t.Errorf("Caps() mismatch (-want +got):\n%s", diff)
	}
}

// TestCaps records the capabilities of every template of testmodels.ChatTemplates() in
// testdata/TestCaps/caps.json and checks a few by what their templates
// visibly do.
func TestCaps(t *testing.T) {
	all := map[string]Caps{}
	for _, name := range testmodels.ChatTemplateNames(t) {
		all[name] = loadTemplate(t, name, "", "").Caps()
	}
	tests := []struct {
		name  string
		check func(Caps) bool
	}{
		// raise_exception('System role not supported'); no tools at all.
		{"google-gemma-2-2b-it", func(c Caps) bool { return !c.SupportsSystemRole && !c.SupportsTools && !c.SupportsToolCalls }},
		// Only system, user and assistant messages, no tools.
		{"microsoft-Phi-3.5-mini-instruct", func(c Caps) bool { return c.SupportsSystemRole && !c.SupportsTools && !c.SupportsToolCalls }},
		{"NousResearch-Hermes-3-Llama-3.1-8B-tool_use", func(c Caps) bool {
			return c.SupportsTools && c.SupportsToolCalls && c.SupportsParallelToolCalls && c.SupportsObjectArguments
		}},
		{"Qwen-Qwen2.5-7B-Instruct", func(c Caps) bool { return c.SupportsTools && c.SupportsToolCalls && c.SupportsParallelToolCalls }},
		// "This model only supports single tool-calls at once!"
		{"meta-llama-Llama-3.1-8B-Instruct", func(c Caps) bool {
			return c.SupportsTools && c.SupportsToolCalls && !c.SupportsParallelToolCalls && c.SupportsObjectArguments
		}},
		{"mistralai-Mistral-Nemo-Instruct-2407", func(c Caps) bool { return c.SupportsTools && c.SupportsToolCalls && c.SupportsObjectArguments }},
		// Writes reasoning_effort ("Reasoning: medium").
		{"openai-gpt-oss-120b", func(c Caps) bool { return c.SupportsReasoningEffort && c.SupportsTools }},
		// Content may be a list of text and image parts.
		{"Mistral-Small-3.2-24B-Instruct-2506", func(c Caps) bool { return c.SupportsTypedContent && c.SupportsStringContent }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := all[tt.name]
			if !ok {
				t.Skipf("%s is not in %s", tt.name, testmodels.ChatTemplates())
			}
			if !tt.check(c) {
				t.Errorf("Caps(%s) = %+v", tt.name, c)
			}
		})
	}
	got, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "caps.json", string(got)+"\n")
}

// TestCapsProbes checks each probe on small templates.
func TestCapsProbes(t *testing.T) {
	const chatml = `{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}`
	tests := []struct {
		name string
		src  string
		want Caps
	}{
		{"chatml", chatml, Caps{SupportsStringContent: true, SupportsSystemRole: true}},
		{"no system", `{% if messages[0].role == 'system' %}{{ raise_exception('no system') }}{% endif %}` + chatml,
			Caps{SupportsStringContent: true}},
		{"tools and calls", chatml + `{{ tools | tojson }}{% for m in messages %}{% for c in m.tool_calls %}{{ c.function.name }}{{ c.function.arguments | tojson }}{% endfor %}{% endfor %}`,
			Caps{SupportsStringContent: true, SupportsSystemRole: true, SupportsTools: true, SupportsToolCalls: true,
				SupportsParallelToolCalls: true, SupportsObjectArguments: true}},
		{"first call only, string arguments", chatml + `{% for m in messages %}{% if m.tool_calls %}{{ m.tool_calls[0].function.name + m.tool_calls[0].function.arguments }}{% endif %}{% endfor %}`,
			Caps{SupportsStringContent: true, SupportsSystemRole: true, SupportsToolCalls: true}},
		{"typed only", `{% for m in messages %}{% for p in m.content %}{{ p.text }}{% endfor %}{% endfor %}`,
			Caps{SupportsTypedContent: true, SupportsSystemRole: true}},
		{"reasoning", chatml + `{% for m in messages %}{{ m.reasoning_content }}{% endfor %}{{ reasoning_effort }}`,
			Caps{SupportsStringContent: true, SupportsSystemRole: true, SupportsPreserveReasoning: true, SupportsReasoningEffort: true}},
		{"broken", `{{ raise_exception('never') }}`, Caps{SupportsStringContent: false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmpl, err := NewTemplate(tt.src, "", "")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tmpl.Caps()); diff != "" {
				t.Errorf("Caps(%q) mismatch (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}
