package engine_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopagent/loop/internal/testmodels"
)

// TestGoldenGrammarsParseInLlama checks every golden grammar of the grammar
// package with llama.cpp's own parser, with a vocabulary for token
// references.
func TestGoldenGrammarsParseInLlama(t *testing.T) {
	m := load(t, testmodels.TinyQwen3F16)
	files, err := filepath.Glob(filepath.Join("..", "grammar", "testdata", "*", "*.gbnf"))
	if err != nil || len(files) < 20 {
		t.Fatalf("found %d golden grammars (%v)", len(files), err)
	}
	for _, f := range files {
		if filepath.Base(f) == "tool-call.gbnf" && filepath.Base(filepath.Dir(f)) == "TestParse" {
			continue // seed 000 Example 3's listing omits rules; it is parsed, not run
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := m.NewGrammar(string(b), "root")
		if err != nil {
			t.Errorf("%s: llama.cpp: %v", f, err)
			continue
		}
		g.Close()
	}
	t.Logf("%d golden grammars parse with llama.cpp", len(files)-1)
}
