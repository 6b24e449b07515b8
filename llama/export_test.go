package llama

// GradCheck exposes Trainer.gradCheck to the external tests.
func (t *Trainer) GradCheck(w Window, name string, h float64) (norm, slope float64, err error) {
	return t.gradCheck(w, name, h)
}
