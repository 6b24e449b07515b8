// Package llama is loop's only cgo package: a Go API over the llama.cpp that
// the pinned github.com/ollama/ollama module carries (llama.cpp ec98e2002).
//
// Load a model, make a context, and decode:
//
//	m, err := llama.LoadModel(ctx, "model.gguf", llama.ModelParams{})
//	if err != nil { ... }            // names the file and the problem
//	defer m.Close()
//	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 4096})
//	if err != nil { ... }
//	slot, _ := llama.NewSlot(c, 0)
//	tokens, _ := m.Tokenize(prompt, true, true)
//	stats, err := slot.Prefill(ctx, tokens) // reuses the cached prefix
//	chain := llama.NewChain(false)
//	chain.Add(llama.NewTemp(0.8))
//	chain.Add(llama.NewDist(seed))
//	tok, err := chain.Sample(c, -1)
//
// Handles (Model, Context, Sampler, Batch) have an idempotent Close and
// return ErrClosed after it; closing a Model closes what was made from it.
// Calls that can block take a context.Context first: cancelling it aborts a
// running decode through llama_set_abort_callback and is checked between
// batches. Errors are *Error values (Op, Subject, Err) wrapping a few
// sentinels: ErrClosed, ErrContextFull, ErrGrammar, ErrNotGGUF and
// ErrInvalidArgument. Arguments that llama.cpp would abort the process on
// (an oversized batch, a sequence id out of range, a token a grammar rejects)
// are refused with an error instead.
//
// A Trainer finetunes every weight of a qwen2 GGUF file with F32 tensors
// on loop's own training graph (graph.cpp; llama.cpp's graphs can only
// train the output head, train.go says why), with ggml's AdamW:
// PackWindows cuts tokenized documents, each with the tokens to learn
// marked, into windows; Trainer.Epoch trains on some and measures the loss
// of the marked tokens on others, checking ctx between windows; and
// Trainer.SaveFile writes the base file with the trained tensors, its
// metadata untouched, atomically. SaveOptimizer and LoadOptimizer write
// and read the AdamW moments, the step count and the prefix cache, and
// LoadWeights the trained tensors, so that a stopped run resumes bit for
// bit (load the weights first: loading them clears the prefix cache).
//
// llama.cpp's logs go to the *slog.Logger given to SetLogger, and are
// discarded by default. A Slot keeps the KV cache of its sequence warm
// across requests the way llama-server's slots do, and reports cache_n and
// prompt_n.
package llama
