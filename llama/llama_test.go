package llama_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// load opens a generated model and closes it when the test ends.
func load(t testing.TB, name string) *llama.Model {
	t.Helper()
	m, err := llama.LoadModel(context.Background(), testmodels.Path(t, name), llama.ModelParams{})
	if err != nil {
		t.Fatalf("LoadModel(%s): %v", name, err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// newContext makes a context that closes when the test ends. Tests use one
// thread unless they ask for more: ggml's threads spin while they wait, and
// test binaries run in parallel on a 2-core CI machine.
func newContext(t testing.TB, m *llama.Model, p llama.ContextParams) *llama.Context {
	t.Helper()
	if p.Threads == 0 {
		p.Threads = 1
	}
	c, err := llama.NewContext(m, p)
	if err != nil {
		t.Fatalf("NewContext: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestSeedTokenCounts checks the token counts the seeds report for their
// texts: seed 004 Example 1 (190 with one tool, 35 without, Qwen2
// vocabulary), seed 002 Example 2 (the JSON line: 33 with Llama 3, 34 with
// Qwen2) and seed 000 Example 8 (the few-shot block: 230 with Qwen2).
func TestSeedTokenCounts(t *testing.T) {
	qwen := load(t, testmodels.TinyQwen15F32)
	llama3 := load(t, testmodels.TinyLlama3Q8)
	tests := []struct {
		name  string
		model *llama.Model
		file  string
		want  int
	}{
		{"seed004 example1 with tool", qwen, "seed004-example1-tools.txt", 190},
		{"seed004 example1 without tools", qwen, "seed004-example1-notools.txt", 35},
		{"seed002 example2 json llama3", llama3, "seed002-example2-json.txt", 33},
		{"seed002 example2 json qwen2", qwen, "seed002-example2-json.txt", 34},
		{"seed000 example8 few-shot", qwen, "seed000-example8-fewshot.txt", 230},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join("testdata", t.Name()[:len("TestSeedTokenCounts")], tt.file))
			if err != nil {
				t.Fatal(err)
			}
			toks, err := tt.model.Tokenize(string(text), false, true)
			if err != nil {
				t.Fatalf("Tokenize: %v", err)
			}
			if got := len(toks); got != tt.want {
				t.Errorf("Tokenize(%s) = %d tokens, want %d", tt.file, got, tt.want)
			}
		})
	}
}
