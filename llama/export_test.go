package llama

import "context"

// FlashAttention returns the flash-attention setting the context was made
// with, after ContextParams.FlashAttention's auto was resolved: "on",
// "off", or "auto" where llama.cpp decided (a GPU, a quantized V cache).
func (c *Context) FlashAttention() string { return c.flashAttn }

// Threads exposes Context.threads to the external tests.
func (c *Context) Threads() (gen, batch int) { return c.threads() }

// Shape returns the model's hyper-parameters.
func (t *Trainer) Shape() trainShape { return t.shape }

// Logits exposes Trainer.logits to the external tests.
func (t *Trainer) Logits(ctx context.Context, tokens []Token) ([]float32, error) {
	return t.logits(ctx, tokens)
}

// GradCheck exposes Trainer.gradCheck to the external tests.
func (t *Trainer) GradCheck(w Window, name string, h float64) (norm, slope float64, err error) {
	return t.gradCheck(w, name, h)
}

// ApplyLlama is Apply with llama.cpp's own code only, the reference of the
// grammar mask.
func (s *Sampler) ApplyLlama(candidates []TokenData) (selected, n int, err error) {
	return s.apply(candidates, true)
}
