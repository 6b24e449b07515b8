package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/loopagent/loop/internal/kld"
	"github.com/loopagent/loop/llama"
)

// kldText is the built-in text: Go source (two of loop's own files),
// because what a coding agent loses to quantization is its prediction of
// code, which prose does not measure.
//
//go:embed kld_text.txt
var kldText string

// runKLD is `loop kld BASE.gguf OTHER.gguf [-f TEXT]`: both models in
// process over the same text, the KL divergence of their next-token
// distributions and each one's perplexity, as llama-perplexity's
// --kl-divergence reports them, without its two-step logits file. As
// llama-perplexity does, the text is cut into windows of -c tokens, each
// starting with BOS when the vocabulary adds one, and only the second half
// of each window is scored, so that every scored token has at least half a
// window of context.
func runKLD(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("kld", stderr)
	file := fs.StringP("file", "f", "", "text to score (default: built-in Go source)")
	nctx := fs.IntP("ctx-size", "c", 512, "window in tokens")
	threads := fs.IntP("threads", "t", 0, "threads (0: the physical cores)")
	jsonOut := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usagef("want two models: BASE.gguf OTHER.gguf")
	}
	if *nctx < 16 {
		return usagef("-c %d: want at least 16", *nctx)
	}
	text := kldText
	if *file != "" {
		b, err := os.ReadFile(*file)
		if err != nil {
			return err
		}
		text = string(b)
	}
	var ms [2]*llama.Model
	var cs [2]*llama.Context
	for i, p := range fs.Args() {
		m, err := llama.LoadModel(ctx, p, llama.ModelParams{})
		if err != nil {
			return err
		}
		defer m.Close()
		c, err := llama.NewContext(m, llama.ContextParams{ContextSize: *nctx, BatchSize: *nctx, UBatchSize: *nctx, Threads: *threads})
		if err != nil {
			return err
		}
		defer c.Close()
		ms[i], cs[i] = m, c
	}
	if err := sameVocab(ms[0], ms[1]); err != nil {
		return fmt.Errorf("%s and %s: %w", fs.Arg(0), fs.Arg(1), err)
	}
	r, err := scoreKLD(ctx, ms[0], cs, text, *nctx)
	if err != nil {
		return err
	}
	if *jsonOut {
		return json.NewEncoder(stdout).Encode(map[string]any{"positions": r.N, "kld_mean": r.Mean, "kld_p90": r.P90,
			"kld_p95": r.P95, "kld_p99": r.P99, "kld_p99.9": r.P999, "kld_max": r.Max, "same_top": r.SameTop,
			"ppl_base": r.PerplexityBase, "ppl_other": r.PPLOth})
	}
	fmt.Fprintf(stdout, "positions scored   %d\nmean KLD           %.6f\nKLD 90%%            %.6f\nKLD 95%%            %.6f\n"+
		"KLD 99%%            %.6f\nKLD 99.9%%          %.6f\nmax KLD            %.6f\nsame top token     %.2f%%\n"+
		"perplexity base    %.4f\nperplexity other   %.4f\n",
		r.N, r.Mean, r.P90, r.P95, r.P99, r.P999, r.Max, 100*r.SameTop, r.PerplexityBase, r.PPLOth)
	return nil
}

// sameVocab refuses two models whose vocabularies or templates differ:
// their distributions would not be over the same tokens.
func sameVocab(a, b *llama.Model) error {
	if a.VocabSize() != b.VocabSize() {
		return fmt.Errorf("vocabularies of %d and %d tokens; kld compares two files of one model", a.VocabSize(), b.VocabSize())
	}
	for t := range a.VocabSize() {
		pa, _ := a.TokenPiece(llama.Token(t), true)
		pb, _ := b.TokenPiece(llama.Token(t), true)
		if pa != pb {
			return fmt.Errorf("token %d is %q in one and %q in the other", t, pa, pb)
		}
	}
	ta, _ := a.ChatTemplate("")
	tb, _ := b.ChatTemplate("")
	if ta != tb {
		return fmt.Errorf("their chat templates differ")
	}
	return nil
}

// scoreKLD decodes each window in both contexts and scores the second
// half of it.
func scoreKLD(ctx context.Context, m *llama.Model, cs [2]*llama.Context, text string, n int) (kld.Report, error) {
	toks, err := m.Tokenize(text, false, false)
	if err != nil {
		return kld.Report{}, err
	}
	if len(toks) < n {
		return kld.Report{}, fmt.Errorf("the text has %d tokens, fewer than one window of %d", len(toks), n)
	}
	batch, err := llama.NewBatch(n, 1)
	if err != nil {
		return kld.Report{}, err
	}
	defer batch.Close()
	var s kld.Stats
	first := n / 2
	for start := 0; start+n <= len(toks); start += n {
		win := append([]llama.Token{}, toks[start:start+n]...)
		if m.AddBOS() {
			win[0] = m.BOS()
		}
		var logits [2][][]float32
		for i, c := range cs {
			if err := c.ClearMemory(true); err != nil {
				return kld.Report{}, err
			}
			batch.Clear()
			for p, t := range win {
				if err := batch.Add(t, p, []int{0}, p >= first); err != nil {
					return kld.Report{}, err
				}
			}
			if err := c.Decode(ctx, batch); err != nil {
				return kld.Report{}, err
			}
			for j := range n - first {
				l, err := c.Logits(first + j)
				if err != nil {
					return kld.Report{}, err
				}
				logits[i] = append(logits[i], l)
			}
		}
		for j := 0; j < n-first-1; j++ {
			if err := s.Add(logits[0][j], logits[1][j], int(win[first+j+1])); err != nil {
				return kld.Report{}, err
			}
		}
	}
	return s.Report(), nil
}
