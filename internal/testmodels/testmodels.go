// Package testmodels locates the random-weight GGUF models that `make
// testdata` generates for loop's tests and benchmarks, and the chat
// templates of the conformance set. A missing model or template fails the
// test with what to do; nothing is skipped silently.
//
// The reference outputs that tests compare with come from the project's
// specification (../shared/seeds).
package testmodels

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// The generated models (see scripts/genmodels).
const (
	// TinyQwen15F32 has the Qwen1.5-style vocabulary (only <|endoftext|>,
	// <|im_start|> and <|im_end|> added), F32 weights and the Qwen 2.5
	// template: a stand-in for tiny-random-qwen2vocab-f32, the model the
	// reference outputs were made with, so that token counts agree.
	TinyQwen15F32 = "tiny-qwen2-qwen15vocab-f32.gguf"
	// TinyQwen3F16 has the full Qwen3 vocabulary and template, F16 weights.
	TinyQwen3F16 = "tiny-qwen2-qwen3vocab-f16.gguf"
	// TinyLlama3Q8 is a llama model with the Llama 3 vocabulary, Q8_0 weights
	// and the Llama 3.1 template.
	TinyLlama3Q8 = "tiny-llama-llama3vocab-q8_0.gguf"
	// BenchQwen2Q8 is shaped like Qwen2.5-0.5B, Q8_0.
	BenchQwen2Q8 = "bench-qwen2-q8_0.gguf"
	// TrainQwen25F32 is a base for training: a 2-layer, 128-wide qwen2
	// model with F32 weights, a 1024-token context, the Qwen 2.5 template
	// and the Qwen 2.5 vocabulary pruned to 8,278 tokens (the byte tokens,
	// the first 8,000 merges and the 22 added tokens), so that its output
	// layer is small, padded with unused tokens to 8,320.
	TrainQwen25F32 = "train-qwen2-qwen25vocab8k-f32.gguf"
)

// Dir returns the model directory: $LOOP_TEST_MODELS, or testdata/models at
// the repository root.
func Dir() string {
	if d := os.Getenv("LOOP_TEST_MODELS"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "models")
}

// Path returns the path of a generated model, failing tb when it is missing.
func Path(tb testing.TB, name string) string {
	tb.Helper()
	p := filepath.Join(Dir(), name)
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("test model %s is missing (%v): run `make testdata` at the repository root", name, err)
	}
	return p
}

// ChatTemplates returns the folder of the conformance set's chat templates:
// $LOOP_CHAT_TEMPLATES, or shared/chat-templates beside the repository.
func ChatTemplates() string {
	if d := os.Getenv("LOOP_CHAT_TEMPLATES"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "chat-templates")
}

// ChatTemplate returns the source of <name>.jinja in ChatTemplates or
// MoreChatTemplates,
// failing tb when it cannot be read.
func ChatTemplate(tb testing.TB, name string) string {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join(ChatTemplates(), name+".jinja"))
	if os.IsNotExist(err) {
		src, err = os.ReadFile(filepath.Join(MoreChatTemplates(), name+".jinja"))
	}
	if err != nil {
		tb.Fatalf("%v: set LOOP_CHAT_TEMPLATES to a folder of llama.cpp's models/templates", err)
	}
	return string(src)
}

// BenchThreads is the thread count of the benchmarks: 2, as in the issues'
// reference figures, or $LOOP_BENCH_THREADS.
func BenchThreads() int {
	if n, err := strconv.Atoi(os.Getenv("LOOP_BENCH_THREADS")); err == nil && n > 0 {
		return n
	}
	return 2
}
