package main

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/fs/ggml"

	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// logits returns the last token's logits of text under the model at path.
func logits(t *testing.T, path, text string) ([]float32, int) {
	t.Helper()
	m, err := llama.LoadModel(context.Background(), path, llama.ModelParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 256, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	toks, err := m.Tokenize(text, false, true)
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
	info, err := m.Info()
	if err != nil {
		t.Fatal(err)
	}
	return l, info.Layers
}

// The grown model computes what the small one did: its new blocks add
// exactly zero to the residual stream.
func TestGrowKeepsLogits(t *testing.T) {
	src := testmodels.Path(t, testmodels.TrainQwen25F32)
	dst := filepath.Join(t.TempDir(), "grown.gguf")
	if err := grow(options{in: src, out: dst, layers: 4, seed: 7, std: 0.02}); err != nil {
		t.Fatal(err)
	}
	const text = "<|im_start|>user\nfunc Rank(marks int) string {\n\treturn \"A\"\n}<|im_end|>\n<|im_start|>assistant\n"
	want, n := logits(t, src, text)
	got, grown := logits(t, dst, text)
	if n != 2 || grown != 4 {
		t.Fatalf("blocks: source %d, grown %d; want 2 and 4", n, grown)
	}
	// The same sums in another graph may round differently in the last
	// bit; a new block that did anything would move them by far more.
	for i := range want {
		if d := got[i] - want[i]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("logit %d: grown %v, source %v", i, got[i], want[i])
		}
	}
}

func TestGrowRefuses(t *testing.T) {
	src := testmodels.Path(t, testmodels.TrainQwen25F32)
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		o    options
		want string
	}{
		{"no more blocks", options{in: src, out: filepath.Join(dir, "a.gguf"), layers: 2, std: 0.02}, "has 2 blocks already"},
		{"not F32", options{in: testmodels.Path(t, testmodels.TinyLlama3Q8), out: filepath.Join(dir, "b.gguf"), layers: 8, std: 0.02}, "is not F32"},
		{"missing file", options{in: filepath.Join(dir, "none.gguf"), out: filepath.Join(dir, "c.gguf"), layers: 4}, "none.gguf"},
		{"negative std", options{in: src, out: filepath.Join(dir, "d.gguf"), layers: 4, std: -1}, "--std"},
	} {
		err := grow(c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if _, serr := os.Stat(c.o.out); serr == nil {
			t.Errorf("%s: %s was written", c.name, c.o.out)
		}
	}
}

// A new block's matrices of one shape start different, within a block and
// across blocks; its output matrices start at zero.
func TestNewBlocksDiffer(t *testing.T) {
	shape := []uint64{8, 4}
	var first []*ggml.Tensor
	for _, n := range []string{"attn_k.weight", "attn_v.weight", "attn_output.weight"} {
		first = append(first, &ggml.Tensor{Name: "blk.0." + n, Shape: shape})
	}
	ts, err := newBlocks(first, 1, options{layers: 3, seed: 1, std: 0.02})
	if err != nil {
		t.Fatal(err)
	}
	values := map[string]f32s{}
	for _, x := range ts {
		values[x.Name] = x.WriterTo.(f32s)
	}
	if len(values) != 6 {
		t.Fatalf("%d tensors, want 6: %v", len(values), slices.Collect(maps.Keys(values)))
	}
	for _, pair := range [][2]string{{"blk.1.attn_k.weight", "blk.1.attn_v.weight"}, {"blk.1.attn_k.weight", "blk.2.attn_k.weight"}} {
		if slices.Equal(values[pair[0]], values[pair[1]]) {
			t.Errorf("%s and %s start equal", pair[0], pair[1])
		}
	}
	for _, n := range []string{"blk.1.attn_output.weight", "blk.2.attn_output.weight"} {
		if slices.ContainsFunc(values[n], func(x float32) bool { return x != 0 }) {
			t.Errorf("%s does not start at zero", n)
		}
	}
}
