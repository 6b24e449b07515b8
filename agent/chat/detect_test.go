package chat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDetectFormat detects the call format of every template in
// chat-templates by rendering probes; the expectations were checked against
// each template's source by hand.
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
		"mistralai-Mistral-Nemo-Instruct-2407":          "mistral",
		"Mistral-Small-3.2-24B-Instruct-2506":           "mistral",
		"unsloth-mistral-Devstral-Small-2507":           "mistral",
		"openai-gpt-oss-120b":                           "harmony",
		"google-gemma-2-2b-it":                          "prompt",
		"microsoft-Phi-3.5-mini-instruct":               "prompt",
	}
	dir := templateDir()
	files, err := filepath.Glob(filepath.Join(dir, "*.jinja"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no templates in %s: %v", dir, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".jinja")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			tmpl, err := NewTemplate(string(src), "<|endoftext|>", "<|endoftext|>")
			if err != nil {
				t.Fatal(err)
			}
			d := DetectFormat(tmpl)
			t.Logf("%s: %s (%s)", name, d.Format, d.Reason)
			if w, ok := want[name]; ok && d.Format != w {
				t.Errorf("DetectFormat(%s) = %s (%s), want %s", name, d.Format, d.Reason, w)
			}
		})
	}
}
