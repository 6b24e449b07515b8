package llama

// GradCheck exposes Trainer.gradCheck to the external tests.
func (t *Trainer) GradCheck(tokens []Token, name string, h float64) (norm, slope float64, err error) {
	return t.gradCheck(tokens, name, h)
}
