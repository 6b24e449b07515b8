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
//
// With Request.DraftMax set, Generate decodes speculatively: it drafts the
// next tokens by prompt lookup (the tokens that followed the last few
// tokens where they occurred before, in the prompt or the reply), verifies
// a draft in one decode, and keeps it up to the first token the chain does
// not pick. The output is the one plain decoding gives; Result.Decodes,
// Drafted and Accepted say how it went. It pays where a reply copies what
// the prompt holds (an edit of a file just read), and drafts only while it
// does (see draft.go). Inside a call it first drafts the text the grammar
// forces (a call's punctuation and keys, a name only one choice fits).
// Request.DraftInCalls limits it to tool calls, and
// Request.Pace keeps what it learnt about when drafting pays from one
// request to the next, and the replies it drafted: a later reply that
// begins as a kept one (a call header, a refused call sent again) is
// drafted from it.
package engine
