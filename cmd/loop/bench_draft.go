package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/llama"
)

// draftStats is how a drafted test's runs decoded (--draft-max).
type draftStats struct {
	DraftMax int `json:"draft_max"`
	Drafted  int `json:"draft_n"`          // draft tokens verified
	Accepted int `json:"draft_n_accepted"` // of them kept
	Decodes  int `json:"n_decode"`
	Tokens   int `json:"n_tokens"`
}

// editPrompt is a completion that reads a 40-line file and writes it again
// with a rename: a model that follows it copies most of the file, which
// prompt lookup drafts.
func editPrompt() string {
	var b strings.Builder
	b.WriteString("// run.go\n")
	for i := range 40 {
		fmt.Fprintf(&b, "\tif err := step%d(ctx, cfg); err != nil { return fmt.Errorf(\"step %d: %%w\", err) }\n", i, i)
	}
	b.WriteString("\n// run.go again, with ctx renamed to c and nothing else changed:\n")
	return b.String()
}

// benchDraft generates n_gen tokens greedily after editPrompt, without and
// with drafting, f.reps times each after a warm-up: the rows edit-tgN and
// edit-tgN+draftK.
func benchDraft(ctx context.Context, m *llama.Model, f benchFlags, base benchResult, rep *benchReport) error {
	prompt, err := m.Tokenize(editPrompt(), true, true)
	if err != nil {
		return err
	}
	slot, greedy, done, err := f.greedySlot(m, max(len(prompt)+f.nGen+f.draftMax+1, 512))
	if err != nil {
		return err
	}
	defer done()
	for _, draftMax := range []int{0, f.draftMax} {
		r := base
		r.Test, r.NPrompt, r.NGen = fmt.Sprintf("edit-tg%d", f.nGen), len(prompt), f.nGen
		if draftMax > 0 {
			r.Test += fmt.Sprintf("+draft%d", draftMax)
			r.Draft = &draftStats{DraftMax: draftMax}
		}
		for i := -1; i < f.reps; i++ { // i == -1 is the warm-up
			res, err := engine.Generate(ctx, slot, engine.Request{Prompt: prompt, Chain: greedy, NPredict: f.nGen, DraftMax: draftMax})
			if err != nil {
				return err
			}
			if i < 0 {
				continue
			}
			r.Samples = append(r.Samples, res.PerSecond())
			if d := r.Draft; d != nil {
				d.Drafted, d.Accepted, d.Decodes, d.Tokens = d.Drafted+res.Drafted, d.Accepted+res.Accepted, d.Decodes+res.Decodes, d.Tokens+len(res.Tokens)
			}
		}
		r.AvgTS, r.StdevTS = meanStdev(r.Samples)
		rep.Results = append(rep.Results, r)
	}
	return nil
}

// printDraft writes how the drafted tests decoded, under the table.
func printDraft(w io.Writer, rep *benchReport) {
	for _, r := range rep.Results {
		if d := r.Draft; d != nil {
			fmt.Fprintf(w, "\n%s: accepted %d of %d draft tokens (%.0f%%), %.2f tokens per decode\n", r.Test, d.Accepted, d.Drafted,
				100*float64(d.Accepted)/float64(max(d.Drafted, 1)), float64(d.Tokens)/float64(max(d.Decodes, 1)))
		}
	}
}
