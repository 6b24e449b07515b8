package testmodels

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// MoreChatTemplates holds the nine templates of chat-templates-more:
// $LOOP_CHAT_TEMPLATES_MORE, else the folder chat-templates-more beside
// ChatTemplates.
func MoreChatTemplates() string {
	if dir := os.Getenv("LOOP_CHAT_TEMPLATES_MORE"); dir != "" {
		return dir
	}
	return filepath.Join(filepath.Dir(ChatTemplates()), "chat-templates-more")
}

// moreTemplateNames are the templates of chat-templates-more.
var moreTemplateNames = []string{
	"ByteDance-Seed-OSS", "CohereForAI-c4ai-command-r-plus-tool_use", "NVIDIA-Nemotron-Nano-v2",
	"deepseek-ai-DeepSeek-R1-Distill-Llama-8B", "fireworks-ai-llama-3-firefunction-v2", "llama-cpp-deepseek-r1",
	"meetkai-functionary-medium-v3.1", "meta-llama-Llama-3.3-70B-Instruct", "moonshotai-Kimi-K2",
}

// ChatTemplateNames lists the templates of ChatTemplates, without ".jinja".
func ChatTemplateNames(t testing.TB) []string {
	t.Helper()
	names := globTemplates(ChatTemplates())
	if len(names) == 0 {
		t.Fatalf("no chat templates in %s: set LOOP_CHAT_TEMPLATES to a folder of *.jinja files (llama.cpp's models/templates)", ChatTemplates())
	}
	return names
}

// AllChatTemplateNames lists the templates of ChatTemplates and moreTemplateDir:
// the 28 of the conformance set. It fails when one of moreTemplateNames is in
// neither.
func AllChatTemplateNames(t testing.TB) []string {
	t.Helper()
	seen := map[string]bool{}
	var names []string
	for _, n := range append(ChatTemplateNames(t), globTemplates(MoreChatTemplates())...) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, n := range moreTemplateNames {
		if !seen[n] {
			t.Fatalf("no %s.jinja in %s or %s: set LOOP_CHAT_TEMPLATES_MORE to ../shared/chat-templates-more", n, ChatTemplates(), MoreChatTemplates())
		}
	}
	sort.Strings(names)
	return names
}

// globTemplates lists the *.jinja files of dir, without ".jinja".
func globTemplates(dir string) []string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.jinja"))
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(filepath.Base(f), ".jinja")
	}
	sort.Strings(names)
	return names
}
