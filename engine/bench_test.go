package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// Grammars for the per-token benchmark: a free JSON string, where a random
// model's choice is usually allowed, and the seed's tool call, where it
// almost never is.
var benchGrammars = []struct{ name, gbnf string }{
	{"string", `root ::= "\"" char{0,400} "\""` + "\n" + `char ::= [^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})`},
	{"toolcall", `root ::= "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"" [a-zA-Z./]{1,200} "\"}}\n</tool_call>"`},
}

// BenchmarkGrammarPerToken measures a generation step (sample and decode
// one token) on the bench model: without a grammar, grammar-first (the
// grammar over the whole vocabulary every token, as llama.cpp's common
// sampler does), exact (the same distribution, candidates checked lazily)
// and rejection-first (fast, not exact). It reports the share of tokens
// the grammar rejected.
func BenchmarkGrammarPerToken(b *testing.B) {
	m := load(b, testmodels.BenchQwen2Q8)
	t := testmodels.BenchThreads()
	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 1024, Threads: t, BatchThreads: t, FlashAttention: "off"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	prompt, _ := m.Tokenize("<|im_start|>user\nWrite the answer as JSON.<|im_end|>\n<|im_start|>assistant\n", false, true)
	run := func(b *testing.B, gbnf string, mode llama.GrammarMode) {
		slot, _ := llama.NewSlot(c, 0)
		tokens, rejected := 0, 0
		for b.Loop() {
			var g *llama.Sampler
			if gbnf != "" {
				g, _ = engine.CompileGrammar(m, gbnf)
			}
			ch := defaultChain(b, 1)
			res, err := engine.Generate(context.Background(), slot, engine.Request{Prompt: prompt, Chain: ch, Grammar: g, GrammarMode: mode, NPredict: 32})
			if err != nil {
				b.Fatal(err)
			}
			tokens += len(res.Tokens)
			rejected += res.Rejections
			ch.Close()
			if g != nil {
				g.Close()
			}
		}
		b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(tokens), "ms/token")
		if gbnf != "" {
			b.ReportMetric(100*float64(rejected)/float64(tokens), "%rejected")
		}
	}
	b.Run("none", func(b *testing.B) { run(b, "", llama.GrammarExact) })
	for _, g := range benchGrammars {
		b.Run(g.name+"/grammar-first", func(b *testing.B) { run(b, g.gbnf, llama.GrammarFirst) })
		b.Run(g.name+"/exact", func(b *testing.B) { run(b, g.gbnf, llama.GrammarExact) })
		b.Run(g.name+"/rejection-first", func(b *testing.B) { run(b, g.gbnf, llama.RejectionFirst) })
	}
}

// BenchmarkToolGrammar builds the required tool-call grammar for 60 and 100
// tools of real size, compiles it with llama.cpp, and samples the first
// token, as llama.cpp #30056's request needed and failed to do.
func BenchmarkToolGrammar(b *testing.B) {
	m := load(b, testmodels.TinyQwen3F16)
	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 512, Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	prompt, _ := m.Tokenize("<|im_start|>assistant\n", false, true)
	slot, _ := llama.NewSlot(c, 0)
	if _, err := slot.Prefill(context.Background(), prompt); err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{60, 100} {
		tools := realTools(n)
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			var size, rules int
			var goMs, llamaMs float64
			for b.Loop() {
				start := time.Now()
				cg, err := grammar.ToolCalls(grammar.Hermes, tools, grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceRequired}})
				if err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				g, err := engine.CompileCalls(m, cg)
				if err != nil {
					b.Fatal(err)
				}
				ch := defaultChain(b, 1)
				if _, _, err := ch.SampleGrammar(c, -1, g, llama.GrammarExact); err != nil {
					b.Fatal(err)
				}
				llamaMs += float64(time.Since(mid).Microseconds()) / 1000
				goMs += float64(mid.Sub(start).Microseconds()) / 1000
				ch.Close()
				g.Close()
				size = len(cg.GBNF)
				if pg, err := grammar.Parse(cg.GBNF); err == nil {
					rules = len(pg.Rules)
				}
			}
			b.ReportMetric(float64(size), "grammar-bytes")
			b.ReportMetric(float64(rules), "rules")
			b.ReportMetric(goMs/float64(b.N), "build-ms")
			b.ReportMetric(llamaMs/float64(b.N), "llama-compile+first-token-ms")
		})
	}
}

// BenchmarkGrammarSample isolates the grammar's cost from the decode: it
// samples a token again and again from the same logits of the bench model
// (the grammar reset and fed the same text each time), with llama-server's
// default chain, in each mode. "none" is the chain alone. At "first" the
// grammar allows a few tokens of the vocabulary (a quote, "<tool_call>"),
// the worst case of the exact mode; "inside" is a free string or path,
// where most of a model's choices are allowed.
func BenchmarkGrammarSample(b *testing.B) {
	m := load(b, testmodels.BenchQwen2Q8)
	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 512, Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	slot, _ := llama.NewSlot(c, 0)
	prompt, _ := m.Tokenize("<|im_start|>user\nWrite the answer as JSON.<|im_end|>\n<|im_start|>assistant\n", false, true)
	if _, err := slot.Prefill(context.Background(), prompt); err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, gbnf, fed string, mode llama.GrammarMode) {
		ch := defaultChain(b, 1)
		defer ch.Close()
		var g *llama.Sampler
		if gbnf != "" {
			g, _ = engine.CompileGrammar(m, gbnf)
			defer g.Close()
		}
		checks, rejected := 0, 0
		for b.Loop() {
			if g == nil {
				if _, err := ch.Sample(c, -1); err != nil {
					b.Fatal(err)
				}
				continue
			}
			g.Reset()
			toks, _ := m.Tokenize(fed, false, true)
			for _, t := range toks {
				if err := g.Accept(t); err != nil {
					b.Fatal(err)
				}
			}
			_, step, err := ch.SampleGrammar(c, -1, g, mode)
			if err != nil {
				b.Fatal(err)
			}
			checks += step.Checked
			if step.Rejected {
				rejected++
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/1000, "ms/sample")
		b.ReportMetric(float64(checks)/float64(b.N), "checked/sample")
		b.ReportMetric(100*float64(rejected)/float64(b.N), "%rejected")
	}
	b.Run("none", func(b *testing.B) { run(b, "", "", llama.GrammarExact) })
	inside := map[string]string{"string": `"The`, "toolcall": "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"src"}
	for _, g := range benchGrammars {
		for _, at := range []string{"first", "inside"} {
			fed := ""
			if at == "inside" {
				fed = inside[g.name]
			}
			for _, mode := range []struct {
				name string
				mode llama.GrammarMode
			}{{"grammar-first", llama.GrammarFirst}, {"exact", llama.GrammarExact}, {"rejection-first", llama.RejectionFirst}} {
				b.Run(g.name+"/"+at+"/"+mode.name, func(b *testing.B) { run(b, g.gbnf, fed, mode.mode) })
			}
		}
	}
}

// BenchmarkGrammarNarrow samples twelve tokens in a row where the grammar
// allows only the continuation of a literal, as it narrows an edit's
// old_string to the text of the file read: fewer tokens are allowed than
// llama-server's default chain's top-k keeps, so each token needs a mask
// of every candidate. The exact mode checks candidates one by one for the
// first token only, then masks at once (see llama.GrammarExact); it should
// cost about what grammar-first does. On the bench model's 151,936-token
// vocabulary and the train model's 8,320.
func BenchmarkGrammarNarrow(b *testing.B) {
	const gbnf = `root ::= "func Rank(marks int) string {\n\tswitch {\n\tcase marks > 124:\n\t\treturn \"A\"\n\tcase marks > 47:\n\t\treturn \"B\"\n\tdefault:\n\t\treturn \"C\"\n\t}\n}\n" | "package calc\n\n// Rank returns the band of a score, from A to C, for the report."`
	for _, name := range []string{testmodels.BenchQwen2Q8, testmodels.TrainQwen25F32} {
		m := load(b, name)
		c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 512, Threads: 1})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		slot, _ := llama.NewSlot(c, 0)
		prompt, _ := m.Tokenize("<|im_start|>user\nFix the bug.<|im_end|>\n<|im_start|>assistant\n", false, true)
		if _, err := slot.Prefill(context.Background(), prompt); err != nil {
			b.Fatal(err)
		}
		for _, mode := range []struct {
			name string
			mode llama.GrammarMode
		}{{"grammar-first", llama.GrammarFirst}, {"exact", llama.GrammarExact}} {
			b.Run(strings.TrimSuffix(name, ".gguf")+"/"+mode.name, func(b *testing.B) {
				ch := defaultChain(b, 1)
				defer ch.Close()
				g, err := engine.CompileGrammar(m, gbnf)
				if err != nil {
					b.Fatal(err)
				}
				defer g.Close()
				checks, tokens := 0, 0
				for b.Loop() {
					g.Reset()
					for range 12 {
						_, step, err := ch.SampleGrammar(c, -1, g, mode.mode)
						if err != nil {
							b.Fatal(err)
						}
						checks += step.Checked
						tokens++
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(tokens)/1000, "ms/token")
				b.ReportMetric(float64(checks)/float64(tokens), "checked/token")
			})
		}
	}
}
