package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/loopagent/loop/internal/pack"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// TestPackRoundTrip packs the tiny model behind an executable, finds it
// again, extracts it, and checks that the packed model gives the same
// logits as the file it came from.
func TestPackRoundTrip(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src := testmodels.Path(t, testmodels.TinyQwen15F32)
	out := filepath.Join(dir, "mytool")
	if err := pack.Write(out, exe, src); err != nil {
		t.Fatal(err)
	}
	info, ok, err := pack.Find(out)
	if err != nil || !ok {
		t.Fatalf("Find = %v, %v", ok, err)
	}
	path, err := pack.Extract(out, info, filepath.Join(dir, "cache"))
	if err != nil {
		t.Fatal(err)
	}
	logits := func(p string) []float32 {
		m, err := llama.LoadModel(context.Background(), p, llama.ModelParams{})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 256, Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		toks, err := m.Tokenize("func Total(prices []int) int {", true, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.DecodeTokens(context.Background(), 0, 0, toks, true); err != nil {
			t.Fatal(err)
		}
		l, err := c.Logits(-1)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	if a, b := logits(src), logits(path); !slices.Equal(a, b) {
		t.Error("the packed model's logits differ from the original's")
	}
}
