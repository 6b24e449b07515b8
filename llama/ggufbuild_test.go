package llama_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// ggufValue is one typed metadata value for ggufFile.
type ggufValue struct {
	typ  uint32 // GGUF type: 4 u32, 5 i32, 6 f32, 7 bool, 8 string, 9 array
	elem uint32 // array element type
	v    any    // uint32, int32, float32, bool, string, or a []any of them
}

func u32v(v uint32) ggufValue  { return ggufValue{typ: 4, v: v} }
func strv(v string) ggufValue  { return ggufValue{typ: 8, v: v} }
func f32v(v float32) ggufValue { return ggufValue{typ: 6, v: v} }
func arrv(elem uint32, items ...any) ggufValue {
	return ggufValue{typ: 9, elem: elem, v: items}
}

// ggufKV is a key and its value, in file order.
type ggufKV struct {
	key string
	val ggufValue
}

// ggufFile returns a GGUF v3 file with the given metadata and no tensors.
func ggufFile(kvs ...ggufKV) []byte {
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	str := func(s string) { w(uint64(len(s))); b.WriteString(s) }
	var scalar func(t uint32, v any)
	scalar = func(t uint32, v any) {
		switch t {
		case 8:
			str(v.(string))
		case 7:
			w(v.(bool))
		default:
			w(v)
		}
	}
	b.WriteString("GGUF")
	w(uint32(3))
	w(uint64(0))
	w(uint64(len(kvs)))
	for _, kv := range kvs {
		str(kv.key)
		w(kv.val.typ)
		if kv.val.typ != 9 {
			scalar(kv.val.typ, kv.val.v)
			continue
		}
		items := kv.val.v.([]any)
		w(kv.val.elem)
		w(uint64(len(items)))
		for _, it := range items {
			scalar(kv.val.elem, it)
		}
	}
	return b.Bytes()
}

// writeGGUF writes data to a temporary file and returns its path.
func writeGGUF(t testing.TB, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "crafted.gguf")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tinyVocab is the metadata of a 16-token BPE vocabulary (GPT-2's default
// BOS and EOS are token 11).
func tinyVocab() []ggufKV {
	return []ggufKV{
		{"tokenizer.ggml.model", strv("gpt2")},
		{"tokenizer.ggml.tokens", arrv(8, "a", "b", "ab", "\u010a", "c", "d", "e", "f", "g", "h", "i", "<eos>", "j", "k", "l", "m")},
		{"tokenizer.ggml.merges", arrv(8, "a b")},
	}
}

// llamaHparams is the metadata a llama model needs before its tensors.
func llamaHparams() []ggufKV {
	return []ggufKV{
		{"general.architecture", strv("llama")},
		{"llama.context_length", u32v(64)},
		{"llama.embedding_length", u32v(8)},
		{"llama.block_count", u32v(1)},
		{"llama.feed_forward_length", u32v(16)},
		{"llama.attention.head_count", u32v(2)},
		{"llama.attention.layer_norm_rms_epsilon", f32v(1e-5)},
	}
}
