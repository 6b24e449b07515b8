package engine_test

import (
	"context"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// lazyReplyTokens is the length of the free reply in BenchmarkLazyAutoReply:
// 20,000 tokens, or $LOOP_LAZY_TOKENS.
func lazyReplyTokens() int {
	if n, err := strconv.Atoi(os.Getenv("LOOP_LAZY_TOKENS")); err == nil && n > 0 {
		return n
	}
	return 20000
}

// lazyReply generates free tokens under the lazy auto grammar of
// readFileTool, with end-of-generation banned so that the reply runs its
// whole length. With call set, it then writes the trigger itself (teacher
// forcing) and samples the call under the woken grammar until the model
// ends it. It returns the time of each block of 1,000 free tokens and the
// call's text.
func lazyReply(tb testing.TB, m *llama.Model, free int, call, noGrammar bool) ([]time.Duration, string) {
	ctx := context.Background()
	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: free + 1024, Threads: testmodels.BenchThreads()})
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	cg, err := grammar.ToolCalls(grammar.Hermes, []grammar.Tool{readFileTool}, grammar.CallOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	g, err := engine.CompileCalls(m, cg)
	if err != nil {
		tb.Fatal(err)
	}
	defer g.Close()
	slot, _ := llama.NewSlot(c, 0)
	prompt, _ := m.Tokenize("<|im_start|>user\nWhat is in pom.xml?<|im_end|>\n<|im_start|>assistant\n", false, true)
	if _, err := slot.Prefill(ctx, prompt); err != nil {
		tb.Fatal(err)
	}
	ban := map[llama.Token]float32{}
	for t := range m.VocabSize() {
		if m.IsEOG(llama.Token(t)) {
			ban[llama.Token(t)] = float32(math.Inf(-1))
		}
	}
	// A one-token trigger (<tool_call> in the Qwen3 vocabulary) is among a
	// random model's choices now and then: ban it too, so that the free
	// text never calls.
	if trig, _ := m.Tokenize("<tool_call>", false, true); len(trig) == 1 {
		ban[trig[0]] = float32(math.Inf(-1))
	}
	freeChain := llama.NewChain(true)
	defer freeChain.Close()
	bias, err := m.NewLogitBias(ban)
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range []*llama.Sampler{bias, llama.NewTopK(40), llama.NewTopP(0.95, 1), llama.NewMinP(0.05, 1), llama.NewTemp(0.8), llama.NewDist(1)} {
		if err := freeChain.Add(s); err != nil {
			tb.Fatal(err)
		}
	}
	var blocks []time.Duration
	start := time.Now()
	for i := 1; i <= free; i++ {
		var tok llama.Token
		if noGrammar {
			tok, err = freeChain.Sample(c, -1)
		} else {
			tok, _, err = freeChain.SampleGrammar(c, -1, g, llama.GrammarMode(0))
		}
		if err != nil {
			tb.Fatalf("token %d: %v", i, err)
		}
		if err := slot.Append(ctx, tok); err != nil {
			tb.Fatalf("token %d: %v", i, err)
		}
		if i%1000 == 0 {
			blocks = append(blocks, time.Since(start))
			start = time.Now()
		}
	}
	if !call {
		return blocks, ""
	}
	trigger, _ := m.Tokenize("<tool_call>\n", false, true)
	for _, tok := range trigger {
		if err := g.Accept(tok); err != nil {
			tb.Fatalf("trigger token %d: %v", tok, err)
		}
		if err := slot.Append(ctx, tok); err != nil {
			tb.Fatal(err)
		}
	}
	ch := defaultChain(tb, 2)
	defer ch.Close()
	res, err := engine.Generate(ctx, slot, engine.Request{Chain: ch, Grammar: g, NPredict: 400})
	if err != nil {
		tb.Fatalf("the call after %d tokens: %v", free, err)
	}
	return blocks, "<tool_call>\n" + res.Text
}

// BenchmarkLazyAutoReply is the reply that crashed llama.cpp's lazy grammar:
// tool_choice auto, and a model that writes 20,000 tokens without a call
// (never), or calls after them (call). It reports the time of the first
// and the last 1,000 free tokens beside a reply without a grammar
// (no-grammar), whose decode alone grows with the context: watching for
// the trigger must add the same at token 20,000 as at token 1. The Qwen1.5
// vocabulary writes <tool_call> in four tokens (a word trigger), the Qwen3
// vocabulary in one (a token trigger).
func BenchmarkLazyAutoReply(b *testing.B) {
	free := lazyReplyTokens()
	for _, name := range []string{testmodels.TinyQwen15F32, testmodels.TinyQwen3F16} {
		m := load(b, name)
		for _, mode := range []string{"no-grammar", "never", "call"} {
			call, noGrammar := mode == "call", mode == "no-grammar"
			b.Run(name+"/"+mode, func(b *testing.B) {
				for b.Loop() {
					blocks, text := lazyReply(b, m, free, call, noGrammar)
					b.ReportMetric(float64(blocks[0].Microseconds())/1000, "ms/first-1k")
					b.ReportMetric(float64(blocks[len(blocks)-1].Microseconds())/1000, "ms/last-1k")
					if call && text == "" {
						b.Fatal("no call")
					}
				}
			})
		}
	}
}
