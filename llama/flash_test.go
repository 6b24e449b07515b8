package llama_test

import (
	"context"
	"testing"

	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// TestFlashAttentionAuto checks how auto resolves: off for a model whose
// layers all run on the CPU (the pinned ggml's CPU flash attention is the
// slower one), unless the V cache is quantized, which needs it; what the
// caller asked for otherwise. Each context must also decode.
func TestFlashAttentionAuto(t *testing.T) {
	gpu := false
	for _, d := range llama.Devices() {
		gpu = gpu || d.Type == "gpu" || d.Type == "igpu"
	}
	offloaded, err := llama.LoadModel(context.Background(), testmodels.Path(t, testmodels.TinyQwen15F32), llama.ModelParams{GPULayers: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer offloaded.Close()
	onCPU := load(t, testmodels.TinyQwen15F32)
	wideHeads := load(t, testmodels.BenchQwen2Q8) // a q8_0 cache needs head sizes that are multiples of 32
	offloadedWant := "off"
	if gpu {
		offloadedWant = "auto"
	}
	for _, tc := range []struct {
		name string
		m    *llama.Model
		p    llama.ContextParams
		want string
	}{
		{"default", onCPU, llama.ContextParams{}, "off"},
		{"auto", onCPU, llama.ContextParams{FlashAttention: "auto"}, "off"},
		{"on", onCPU, llama.ContextParams{FlashAttention: "on"}, "on"},
		{"off", onCPU, llama.ContextParams{FlashAttention: "off"}, "off"},
		{"quantized V", wideHeads, llama.ContextParams{CacheTypeK: "q8_0", CacheTypeV: "q8_0"}, "auto"},
		{"every layer offloaded", offloaded, llama.ContextParams{}, offloadedWant},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.p.ContextSize = 256
			c := newContext(t, tc.m, tc.p)
			if got := c.FlashAttention(); got != tc.want {
				t.Errorf("FlashAttention() = %q, want %q", got, tc.want)
			}
			slot, err := llama.NewSlot(c, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := slot.Prefill(context.Background(), tokenize(t, tc.m, samplePrompt)); err != nil {
				t.Fatalf("prefill: %v", err)
			}
		})
	}
}
