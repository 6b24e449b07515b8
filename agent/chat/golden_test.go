package chat

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/testmodels"
)

// readTestdata reads testdata/<path>.
func readTestdata(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// moreTemplateDir holds the nine templates of chat-templates-more:
// $LOOP_CHAT_TEMPLATES_MORE, else the folder chat-templates-more beside
// testmodels.ChatTemplates.
func moreTemplateDir() string {
	if dir := os.Getenv("LOOP_CHAT_TEMPLATES_MORE"); dir != "" {
		return dir
	}
	return filepath.Join(filepath.Dir(testmodels.ChatTemplates()), "chat-templates-more")
}

// moreTemplates are the templates of chat-templates-more.
var moreTemplates = []string{
	"ByteDance-Seed-OSS", "CohereForAI-c4ai-command-r-plus-tool_use", "NVIDIA-Nemotron-Nano-v2",
	"deepseek-ai-DeepSeek-R1-Distill-Llama-8B", "fireworks-ai-llama-3-firefunction-v2", "llama-cpp-deepseek-r1",
	"meetkai-functionary-medium-v3.1", "meta-llama-Llama-3.3-70B-Instruct", "moonshotai-Kimi-K2",
}

// templateNames lists the templates of testmodels.ChatTemplates, without ".jinja".
func templateNames(t testing.TB) []string {
	t.Helper()
	names := globTemplates(testmodels.ChatTemplates())
	if len(names) == 0 {
		t.Fatalf("no chat templates in %s: set LOOP_CHAT_TEMPLATES to a folder of *.jinja files (llama.cpp's models/templates)", testmodels.ChatTemplates())
	}
	return names
}

// allTemplateNames lists the templates of testmodels.ChatTemplates and moreTemplateDir:
// the 28 of the conformance set. It fails when one of moreTemplates is in
// neither.
func allTemplateNames(t testing.TB) []string {
	t.Helper()
	seen := map[string]bool{}
	var names []string
	for _, n := range append(templateNames(t), globTemplates(moreTemplateDir())...) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, n := range moreTemplates {
		if !seen[n] {
			t.Fatalf("no %s.jinja in %s or %s: set LOOP_CHAT_TEMPLATES_MORE to ../shared/chat-templates-more", n, testmodels.ChatTemplates(), moreTemplateDir())
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

// loadTemplate compiles <name>.jinja from testmodels.ChatTemplates or moreTemplateDir.
func loadTemplate(t testing.TB, name, bos, eos string) *Template {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(testmodels.ChatTemplates(), name+".jinja"))
	if os.IsNotExist(err) {
		src, err = os.ReadFile(filepath.Join(moreTemplateDir(), name+".jinja"))
	}
	if err != nil {
		t.Fatalf("%v: set LOOP_CHAT_TEMPLATES to a folder of llama.cpp's models/templates", err)
	}
	tmpl, err := NewTemplate(string(src), bos, eos)
	if err != nil {
		t.Fatalf("NewTemplate(%s) = %v", name, err)
	}
	return tmpl
}
