package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeTokenizer writes a small Qwen-style tokenizer.json and
// tokenizer_config.json into dir.
func writeTokenizer(t *testing.T, dir string) {
	t.Helper()
	vocab := map[string]int{"a": 0, "b": 1, "ab": 2, "Ġ": 3}
	tk := map[string]any{
		"added_tokens": []map[string]any{
			{"id": 4, "content": "<|endoftext|>", "special": true},
			{"id": 5, "content": "<|im_start|>", "special": true},
			{"id": 6, "content": "<|im_end|>", "special": true},
			{"id": 7, "content": "<tool_call>", "special": false},
		},
		"model": map[string]any{"type": "BPE", "vocab": vocab, "merges": [][2]string{{"a", "b"}}},
	}
	b, _ := json.Marshal(tk)
	os.WriteFile(filepath.Join(dir, "tokenizer.json"), b, 0o644)
	os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(`{"chat_template": "{{ messages }}"}`), 0o644)
}

func TestQwenVocab(t *testing.T) {
	dir := t.TempDir()
	writeTokenizer(t, dir)
	full, err := qwenVocab(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int32{1, 1, 1, 1, 3, 3, 3, 4}, full.types); diff != "" {
		t.Errorf("token types (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a b"}, full.merges); diff != "" {
		t.Errorf("merges (-want +got):\n%s", diff)
	}
	old, err := qwenVocab(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(old.tokens) != 7 || old.tokens[6] != "<|im_end|>" {
		t.Errorf("Qwen1.5-style vocabulary = %q, want the BPE tokens and three added ones", old.tokens)
	}
	old.padTo(10)
	if len(old.tokens) != 10 || old.tokens[9] != "[PAD9]" || old.types[9] != tokenUnused {
		t.Errorf("padTo(10) = %q %v", old.tokens, old.types)
	}
}

// TestDeterministic writes the same model twice and checks the bytes match,
// and that another seed changes them.
func TestDeterministic(t *testing.T) {
	dir := t.TempDir()
	writeTokenizer(t, dir)
	o := options{qwenDir: dir}
	s := spec{arch: "qwen2", vocab: "qwen15", typ: "q8_0", size: "tiny", seed: 7}
	gen := func(s spec, name string) []byte {
		p := filepath.Join(dir, name)
		if err := write(o, s, p, ""); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := gen(s, "a.gguf"), gen(s, "b.gguf")
	if !bytes.Equal(a, b) {
		t.Errorf("two runs with seed 7 wrote different files")
	}
	s.seed = 8
	if bytes.Equal(a, gen(s, "c.gguf")) {
		t.Errorf("seeds 7 and 8 wrote the same file")
	}
	if !bytes.HasPrefix(a, []byte("GGUF")) {
		t.Errorf("output does not start with the GGUF magic")
	}
}

func TestAppendQ8Block(t *testing.T) {
	x := make([]float32, q8Block)
	for i := range x {
		x[i] = float32(i-16) / 16
	}
	b := appendQ8Block(nil, x)
	if len(b) != 34 {
		t.Fatalf("Q8_0 block is %d bytes, want 34", len(b))
	}
	if got := int8(b[2]); got != -127 { // x[0] = -1 = -max|x|
		t.Errorf("first quant = %d, want -127", got)
	}
}

func FuzzParseMerges(f *testing.F) {
	f.Add([]byte(`["a b", "c d"]`))
	f.Add([]byte(`[["a", "b"]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		parseMerges(data)
	})
}

func TestPruneMerges(t *testing.T) {
	ids := map[string]int{"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "bc": 5}
	keep, err := pruneMerges([]string{"a b", "ab c"}, []string{"a", "b", "c"}, ids)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[int]bool{0: true, 1: true, 2: true, 3: true, 4: true}, keep); diff != "" {
		t.Errorf("kept ids (-want +got):\n%s", diff)
	}
	if _, err := pruneMerges([]string{"ab c"}, []string{"a", "b", "c"}, ids); err == nil {
		t.Errorf("pruneMerges accepted a merge of a token no earlier merge made")
	}
	if _, err := pruneMerges([]string{"c a"}, []string{"a", "b", "c"}, ids); err == nil {
		t.Errorf("pruneMerges accepted a merge whose result is not in the vocabulary")
	}
}

// TestByteTokens checks GPT-2's byte-to-symbol map on the bytes whose
// symbols every byte-level BPE vocabulary shows: space is Ġ, newline Ċ.
func TestByteTokens(t *testing.T) {
	b := byteTokens()
	seen := map[string]bool{}
	for _, s := range b {
		seen[s] = true
	}
	if len(b) != 256 || len(seen) != 256 {
		t.Fatalf("byteTokens() has %d symbols, %d distinct; want 256", len(b), len(seen))
	}
	for _, tt := range []struct {
		b    byte
		want string
	}{{' ', "Ġ"}, {'\n', "Ċ"}, {'A', "A"}, {0xFF, "ÿ"}} {
		if b[tt.b] != tt.want {
			t.Errorf("byteTokens()[%#x] = %q, want %q", tt.b, b[tt.b], tt.want)
		}
	}
}
