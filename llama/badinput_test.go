package llama_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// minimalGGUF returns a GGUF v3 file with no tensors and the given string
// key-value pairs.
func minimalGGUF(kv ...string) []byte {
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) { w(uint64(len(s))); b.WriteString(s) }
	b.WriteString("GGUF")
	w(uint32(3))
	w(uint64(0))           // tensors
	w(uint64(len(kv) / 2)) // key-value pairs
	for i := 0; i < len(kv); i += 2 {
		str(kv[i])
		w(uint32(8)) // GGUF_TYPE_STRING
		str(kv[i+1])
	}
	return b.Bytes()
}

func TestLoadBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tiny, err := os.ReadFile(testmodels.Path(t, testmodels.TinyQwen15F32))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		path   string
		is     error  // errors.Is target, if any
		substr string // text the message must contain
	}{
		{"missing file", filepath.Join(dir, "nope.gguf"), fs.ErrNotExist, "nope.gguf"},
		{"directory", dir, nil, "is a directory"},
		{"not gguf", write("zip.gguf", []byte("PK\x03\x04 this is a zip file")), llama.ErrNotGGUF, `magic "PK\x03\x04"`},
		{"empty file", write("empty.gguf", nil), llama.ErrNotGGUF, "not a GGUF file"},
		{"truncated header", write("head.gguf", tiny[:64]), llama.ErrNotGGUF, "cannot fit in 64 bytes"},
		{"huge key length", write("keylen.gguf", append(minimalGGUF("general.architecture", "qwen2")[:24], 8, 0, 0, 0, 5, 0, 0, 0)), llama.ErrNotGGUF, "runs past the end of the file"},
		{"truncated data", write("half.gguf", tiny[:len(tiny)/2]), llama.ErrNotGGUF, "truncated: tensor data ends at"},
		{"unknown architecture", write("arch.gguf", minimalGGUF("general.architecture", "foo")), nil, "unknown model architecture: 'foo'"},
		{"no architecture", write("noarch.gguf", minimalGGUF("general.name", "x")), nil, "load model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := llama.LoadModel(context.Background(), tt.path, llama.ModelParams{})
			if err == nil {
				m.Close()
				t.Fatalf("LoadModel(%s) succeeded, want an error", tt.name)
			}
			t.Logf("%v", err)
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("LoadModel error %q is not %v", err, tt.is)
			}
			if !strings.Contains(err.Error(), tt.substr) || !strings.Contains(err.Error(), tt.path) {
				t.Errorf("LoadModel error %q should name %s and say %q", err, tt.path, tt.substr)
			}
			var le *llama.Error
			if !errors.As(err, &le) || le.Op != "load model" {
				t.Errorf("LoadModel error %#v is not a *llama.Error with Op \"load model\"", err)
			}
		})
	}
}

func TestLoadCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := llama.LoadModel(ctx, testmodels.Path(t, testmodels.TinyQwen15F32), llama.ModelParams{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("LoadModel with a cancelled context = %v, want context.Canceled", err)
	}
}

func TestContextBadParams(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	tests := []struct {
		name   string
		p      llama.ContextParams
		substr string
	}{
		{"beyond trained context", llama.ContextParams{ContextSize: 1 << 20}, "beyond the trained context of 32768"},
		{"too many sequences", llama.ContextParams{Sequences: 1000}, "1000 sequences"},
		{"negative size", llama.ContextParams{ContextSize: -1}, "negative"},
		{"bad flash attention", llama.ContextParams{FlashAttention: "maybe"}, "flash attention"},
		{"bad cache type", llama.ContextParams{CacheTypeK: "q9"}, `unknown KV cache type "q9"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := llama.NewContext(m, tt.p)
			if err == nil {
				c.Close()
				t.Fatalf("NewContext(%+v) succeeded, want an error", tt.p)
			}
			if !errors.Is(err, llama.ErrInvalidArgument) || !strings.Contains(err.Error(), tt.substr) {
				t.Errorf("NewContext error = %q, want ErrInvalidArgument saying %q", err, tt.substr)
			}
		})
	}
}

func TestPromptLargerThanContext(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 256})
	slot, _ := llama.NewSlot(c, 0)
	prompt := tokenize(t, m, strings.Repeat("word ", 300))
	_, err := slot.Prefill(context.Background(), prompt)
	if !errors.Is(err, llama.ErrContextFull) || !strings.Contains(err.Error(), "exceeds the context of 256") {
		t.Fatalf("Prefill(%d tokens) into 256 = %v, want ErrContextFull naming the sizes", len(prompt), err)
	}
	if slot.Len() != 0 || c.SeqPosMax(0) != -1 {
		t.Errorf("a refused prompt changed the cache: slot %d tokens, pos max %d", slot.Len(), c.SeqPosMax(0))
	}
	// Filling the cache token by token ends in ErrContextFull, not a crash.
	if _, err := slot.Prefill(context.Background(), prompt[:250]); err != nil {
		t.Fatal(err)
	}
	// Below the slot, llama_decode's own "no KV slot" (return code 1) maps
	// to ErrContextFull too.
	if _, err := c.DecodeTokens(context.Background(), 0, 250, prompt[:20], true); !errors.Is(err, llama.ErrContextFull) {
		t.Errorf("DecodeTokens past the end of the cache = %v, want ErrContextFull", err)
	}
	for i := 0; ; i++ {
		if err := slot.Append(context.Background(), prompt[0]); err != nil {
			if !errors.Is(err, llama.ErrContextFull) {
				t.Fatalf("Append #%d = %v, want ErrContextFull", i, err)
			}
			break
		}
		if i > 300 {
			t.Fatal("Append never reported a full context")
		}
	}
}

func TestInvalidArguments(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 256, BatchSize: 32})
	ctx := context.Background()
	big := make([]llama.Token, 33)
	b, err := llama.NewBatch(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i := range big {
		b.Add(1, i, []int{0}, false)
	}
	checks := []struct {
		name string
		err  error
	}{
		{"token outside vocabulary", func() error {
			_, err := c.DecodeTokens(ctx, 0, 0, []llama.Token{int32(m.VocabSize())}, true)
			return err
		}()},
		{"negative token", func() error { _, err := m.Detokenize([]llama.Token{-5}, false); return err }()},
		{"sequence out of range", func() error { _, err := c.DecodeTokens(ctx, 3, 0, []llama.Token{1}, true); return err }()},
		{"batch above n_batch", c.Decode(ctx, b)},
		{"logits of an unknown row", func() error { _, err := c.Logits(5000); return err }()},
		{"seq rm out of range", func() error { _, err := c.SeqRemove(7, -1, -1); return err }()},
		{"logit bias outside vocabulary", func() error { _, err := m.NewLogitBias(map[llama.Token]float32{-1: 1}); return err }()},
	}
	for _, ch := range checks {
		if !errors.Is(ch.err, llama.ErrInvalidArgument) {
			t.Errorf("%s: err = %v, want ErrInvalidArgument", ch.name, ch.err)
		}
	}
}

func TestClosedHandles(t *testing.T) {
	m, err := llama.LoadModel(context.Background(), testmodels.Path(t, testmodels.TinyQwen15F32), llama.ModelParams{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 256, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.NewGrammar(`root ::= "a"`, "root")
	if err != nil {
		t.Fatal(err)
	}
	chain := llama.NewChain(true)
	chain.Add(llama.NewGreedy())
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Context.Close = %v", err)
	}
	if _, err := c.DecodeTokens(context.Background(), 0, 0, []llama.Token{1}, true); !errors.Is(err, llama.ErrClosed) {
		t.Errorf("DecodeTokens after Close = %v, want ErrClosed", err)
	}
	if _, err := chain.Sample(c, -1); !errors.Is(err, llama.ErrClosed) {
		t.Errorf("Sample on a closed context = %v, want ErrClosed", err)
	}
	chain.Close()
	if _, err := chain.Sample(c, -1); !errors.Is(err, llama.ErrClosed) {
		t.Errorf("Sample on a closed chain = %v, want ErrClosed", err)
	}
	// Closing the model closes what was made from it.
	c2, err := llama.NewContext(m, llama.ContextParams{ContextSize: 256, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	m.Close()
	if _, err := m.Tokenize("hello", false, false); !errors.Is(err, llama.ErrClosed) {
		t.Errorf("Tokenize after Close = %v, want ErrClosed", err)
	}
	if _, err := llama.NewContext(m, llama.ContextParams{}); !errors.Is(err, llama.ErrClosed) {
		t.Errorf("NewContext on a closed model = %v, want ErrClosed", err)
	}
	if _, err := c2.DecodeTokens(context.Background(), 0, 0, []llama.Token{1}, true); !errors.Is(err, llama.ErrClosed) {
		t.Errorf("DecodeTokens on a context of a closed model = %v, want ErrClosed", err)
	}
	if err := g.Accept(1); !errors.Is(err, llama.ErrClosed) {
		t.Errorf("Accept on a grammar of a closed model = %v, want ErrClosed", err)
	}
	if _, err := m.NewGrammar(`root ::= "a"`, ""); !errors.Is(err, llama.ErrClosed) {
		t.Errorf("NewGrammar on a closed model = %v, want ErrClosed", err)
	}
	c2.Close()
	g.Close()
}

// TestMatmulGFLOPS times the roofline's matrix product with F32, F16 and
// Q8_0 weights, and refuses a type it cannot make: an unknown one, and
// IQ2_XXS, which needs an importance matrix. It repeats the product three
// times, as loop bench does: each run once took a new work buffer from a
// pool sized for one, and a 1024 Q8_0 product crashed inside ggml.
func TestMatmulGFLOPS(t *testing.T) {
	for _, typ := range []int{0, 1, 8} {
		if g, err := llama.MatmulGFLOPS(1024, typ, 1, 3); err != nil || !(g > 0) {
			t.Errorf("type %d: %v GFLOP/s, %v", typ, g, err)
		}
	}
	for _, typ := range []int{-1, 4, 16, 999} {
		if _, err := llama.MatmulGFLOPS(256, typ, 1, 1); !errors.Is(err, llama.ErrInvalidArgument) {
			t.Errorf("type %d: %v, want ErrInvalidArgument", typ, err)
		}
	}
}
