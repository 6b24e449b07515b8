package llama_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// FuzzTokenize feeds arbitrary bytes to the tokenizer: it must not crash,
// and valid UTF-8 without special-token parsing must round-trip.
func FuzzTokenize(f *testing.F) {
	m := load(f, testmodels.TinyQwen15F32)
	for _, s := range []string{"", "hello world", "<|im_start|>user\n", "\xff\xfe", "日本語 ☃ \u0000", "    \t\n\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks, err := m.Tokenize(s, true, true)
		if err != nil {
			t.Fatalf("Tokenize(%q): %v", s, err)
		}
		if _, err := m.Detokenize(toks, true); err != nil {
			t.Fatalf("Detokenize: %v", err)
		}
		if !utf8.ValidString(s) {
			return
		}
		plain, err := m.Tokenize(s, false, false)
		if err != nil {
			t.Fatal(err)
		}
		back, err := m.Detokenize(plain, false)
		if err != nil || back != s {
			t.Errorf("Detokenize(Tokenize(%q)) = %q, %v", s, back, err)
		}
	})
}

// FuzzLoadModel mutates the header of a GGUF file: loading must fail with an
// error or succeed, never crash.
func FuzzLoadModel(f *testing.F) {
	f.Add(minimalGGUF("general.architecture", "qwen2"), uint16(0))
	f.Add(minimalGGUF("general.architecture", "foo", "general.name", "x"), uint16(3))
	tiny, err := os.ReadFile(testmodels.Path(f, testmodels.TinyLlama3Q8))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(tiny[:256], uint16(100))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, head []byte, cut uint16) {
		data := append([]byte("GGUF"), head...)
		if int(cut) < len(data) {
			data = data[:len(data)-int(cut)]
		}
		p := filepath.Join(dir, "fuzz.gguf")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := llama.LoadModel(context.Background(), p, llama.ModelParams{VocabOnly: true})
		if err == nil {
			m.Close()
		}
	})
}
