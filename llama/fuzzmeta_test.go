package llama_test

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopagent/loop/llama"
)

// fuzzArchs are architectures whose hyperparameters the metadata fuzzer
// sets: dense, mixture-of-experts, sliding-window, encoder and recurrent
// models each take other paths through llama.cpp's load_hparams.
var fuzzArchs = []string{"llama", "qwen2", "qwen3moe", "gemma3", "phi3", "bert", "t5", "mamba", "rwkv6", "deepseek2", "olmoe", "qwen2vl", "glm4moe", "gemma-embedding", "granitemoe", "llama4"}

// fuzzKeySuffixes are the per-architecture keys the fuzzer sets.
var fuzzKeySuffixes = []string{
	".context_length", ".embedding_length", ".block_count", ".feed_forward_length",
	".attention.head_count", ".attention.head_count_kv", ".attention.key_length", ".attention.value_length",
	".attention.layer_norm_rms_epsilon", ".attention.layer_norm_epsilon", ".attention.sliding_window",
	".expert_count", ".expert_used_count", ".expert_group_count", ".expert_group_used_count", ".expert_shared_count",
	".expert_feed_forward_length", ".leading_dense_block_count", ".rope.dimension_count", ".rope.dimension_sections",
	".rope.scaling.type", ".rope.scaling.factor", ".rope.freq_base", ".vocab_size", ".pooling_type",
	".dense_2_feat_in", ".dense_3_feat_out", ".ssm.conv_kernel", ".ssm.inner_size", ".ssm.state_size",
	".ssm.time_step_rank", ".attention.q_lora_rank", ".attention.kv_lora_rank", ".wkv.head_size",
	".interleave_moe_layer_step", ".attention.causal", ".decoder_start_token_id",
}

// fuzzGlobalKeys are the vocabulary and general keys the fuzzer sets.
var fuzzGlobalKeys = []string{
	"tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.tokens", "tokenizer.ggml.scores",
	"tokenizer.ggml.token_type", "tokenizer.ggml.merges", "tokenizer.ggml.bos_token_id",
	"tokenizer.ggml.eos_token_id", "tokenizer.ggml.unknown_token_id", "tokenizer.ggml.padding_token_id",
	"tokenizer.ggml.add_bos_token", "tokenizer.ggml.add_eos_token", "tokenizer.ggml.precompiled_charsmap",
	"tokenizer.ggml.add_space_prefix", "general.architecture", "xielu.alpha_n",
}

// fuzzValue turns four fuzz bytes into a value of the type typ picks.
func fuzzValue(typ byte, b []byte) ggufValue {
	n := binary.LittleEndian.Uint32(b)
	small := n % 9
	switch typ % 10 {
	case 0:
		return u32v(small)
	case 1:
		return u32v(n)
	case 2:
		return ggufValue{typ: 5, v: int32(n)}
	case 3:
		return f32v(math.Float32frombits(n))
	case 4:
		return ggufValue{typ: 7, v: n%2 == 1}
	case 5:
		return strv([]string{"gpt2", "llama", "none", "linear", "yarn", "bert", "t5", "no_vocab", "a b", "", "rwkv", "ugm"}[n%12])
	case 6:
		items := make([]any, small)
		for i := range items {
			items[i] = uint32(n>>8) % 17
		}
		return arrv(4, items...)
	case 7:
		items := make([]any, small)
		for i := range items {
			items[i] = float32(i)
		}
		return arrv(6, items...)
	case 8:
		items := make([]any, small)
		for i := range items {
			items[i] = []string{"a", "b", "ab", "a b", "\n", ""}[(int(n)+i)%6]
		}
		return arrv(8, items...)
	}
	items := make([]any, small)
	for i := range items {
		items[i] = int32(i)
	}
	return arrv(5, items...)
}

// fuzzMeta builds metadata from a program: each 6 bytes pick a key, a type
// and a value, replacing or adding that key in a small valid model.
func fuzzMeta(prog []byte) []ggufKV {
	arch := "llama"
	if len(prog) > 0 {
		arch = fuzzArchs[int(prog[0])%len(fuzzArchs)]
		prog = prog[1:]
	}
	kvs := append(llamaHparams(), tinyVocab()...)
	for i := range kvs {
		if kvs[i].key == "general.architecture" {
			kvs[i].val = strv(arch)
		} else if len(kvs[i].key) > 6 && kvs[i].key[:6] == "llama." {
			kvs[i].key = arch + kvs[i].key[5:]
		}
	}
	for ; len(prog) >= 6; prog = prog[6:] {
		var key string
		if k := int(prog[0]); k < 128 {
			key = arch + fuzzKeySuffixes[k%len(fuzzKeySuffixes)]
		} else {
			key = fuzzGlobalKeys[k%len(fuzzGlobalKeys)]
		}
		val := fuzzValue(prog[1], prog[2:6])
		replaced := false
		for i := range kvs {
			if kvs[i].key == key {
				kvs[i].val, replaced = val, true
			}
		}
		if !replaced {
			kvs = append(kvs, ggufKV{key, val})
		}
	}
	return kvs
}

// FuzzLoadModelMeta loads models whose metadata a program of bytes
// crafts: architectures, hyperparameters and vocabularies of every type and
// size. Loading (with weights, so that load_hparams runs, and vocabulary
// only, to tokenize with what loaded) must fail with an error or succeed;
// an abort inside llama.cpp kills the fuzzing worker and the fuzzer keeps
// the input. Each worker is a process of its own, so `go test -fuzz`
// is the subprocess harness; the kept inputs run here as tests.
func FuzzLoadModelMeta(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{0, 12, 0, 1, 0, 0, 0})                    // llama, expert_used_count 1
	f.Add([]byte{2, 11, 1, 8, 0, 0, 0, 12, 0, 2, 0, 0, 0}) // qwen3moe, 8 experts, 2 used
	f.Add([]byte{0, 20, 5, 7, 0, 0, 0})                    // rope scaling type
	f.Add([]byte{0, 4, 7, 2, 0, 0, 0})                     // head counts as floats
	f.Add([]byte{5, 130, 9, 3, 0, 0, 0})                   // bert, token types
	f.Fuzz(func(t *testing.T, prog []byte) {
		// A file of its own: fuzzing workers run side by side, and a file
		// rewritten under another worker's mmap would kill it with SIGBUS.
		p := filepath.Join(t.TempDir(), "meta.gguf")
		if err := os.WriteFile(p, ggufFile(fuzzMeta(prog)...), 0o644); err != nil {
			t.Fatal(err)
		}
		if m, err := llama.LoadModel(context.Background(), p, llama.ModelParams{}); err == nil {
			m.Close()
		}
		m, err := llama.LoadModel(context.Background(), p, llama.ModelParams{VocabOnly: true})
		if err != nil {
			return
		}
		defer m.Close()
		toks, err := m.Tokenize("a b\nab", true, true)
		if err == nil {
			m.Detokenize(toks, true)
		}
	})
}
