// Package engine runs generation on llama/ with the settings of sampler/ and
// the grammars of grammar/. It is the one place that joins them: it builds
// llama.cpp's sampler chain from a sampler.Config, compiles a GBNF grammar
// (lazy with its triggers when asked), and samples token by token with the
// grammar applied rejection-first, streaming complete UTF-8 text and
// reporting why generation stopped, as llama-server does.
//
//	chain, _ := engine.Chain(llamaCtx, cfg)
//	g, _ := engine.CompileCalls(model, callGrammar)
//	res, err := engine.Generate(ctx, slot, engine.Request{Prompt: toks, Chain: chain, Grammar: g, NPredict: 256})
package engine
