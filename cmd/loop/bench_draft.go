package main

import (
	"context"
	"fmt"
	"io"
	"math"
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
	// Output is the start of the first timed repetition's text, so that a
	// reader sees what was drafted: a copy, or a model repeating itself.
	Output string `json:"output"`
}

// outputShown is how many bytes of a drafted row's output the report
// shows.
const outputShown = 72

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

// textPrompt is prose that a reply need not copy: sampled at temperature 1
// from a random or small model, the reply repeats next to nothing, so
// prompt lookup finds little to draft and what it drafts fails. The rows
// text-tgN and text-tgN+draftK show what drafting costs where it does not
// pay; the bar is no slower than 0.98x of plain decoding.
const textPrompt = "Write a short story about a lighthouse keeper who finds a message in a bottle. " +
	"Describe the weather, the sea and the keeper's thoughts, in plain words.\n\n"

// textSeed seeds the sampled chain of the text rows: the warm-up samples
// from textSeed and repetition i from textSeed+i+1, in both rows, so the
// plain and the drafted run of a repetition sample the same tokens, and
// the repetitions sample different texts (one seed for all would time one
// text, and whatever it happens to repeat, a hundred times).
const textSeed = 42

// draftWorkload is a prompt that benchDraft generates from, with its chain
// for a repetition (-1: the warm-up).
type draftWorkload struct {
	name   string
	prompt []llama.Token
	chain  func(rep int) (*llama.Sampler, error)
	// sources are what the agent's request gives the drafter to copy
	// from (engine.Request.Sources): the file the edit-call step read.
	sources [][]llama.Token
	// answer is what it gives an answer to copy from
	// (engine.Request.AnswerSources): the answer step's last tool result.
	answer [][]llama.Token
}

// benchDraft generates n_gen tokens after editPrompt greedily, after
// textPrompt sampled at temperature 1, and, for a model with a chat
// template, after callPrompt and the answer step greedily, each without
// and with drafting, f.reps times after a warm-up, plain and drafted in
// turn: the rows edit-tgN, edit-tgN+draftK, text-tgN, text-tgN+draftK,
// edit-call-tgN, edit-call-tgN+draftK, answer-tgN and answer-tgN+draftK.
// editPrompt is a raw completion, which a model trained on chats may not
// follow; callPrompt is the agent's own step before the edit, in the
// format the demo model is trained on, and the answer step the agent's
// step after reading run.go for answerTask, drafted from that read's
// result as the agent offers it (engine.Request.AnswerSources). As llama.cpp's
// --ignore-eos does, both chains keep every end-of-generation token out:
// a trained model would end its reply after a few tokens, and the rows
// would time those rather than n_gen. Last, the step rows time the
// edit-call step as loop run ships it (stepRows): through agent/local,
// under the call grammar, ending where the model ends it.
func benchDraft(ctx context.Context, m *llama.Model, f benchFlags, base benchResult, rep *benchReport) error {
	edit, err := m.Tokenize(editPrompt(), true, true)
	if err != nil {
		return err
	}
	text, err := m.Tokenize(textPrompt, true, true)
	if err != nil {
		return err
	}
	call, err := stepAfterRead(ctx, m, callTask)
	if err != nil {
		return fmt.Errorf("the edit-call prompt: %w", err)
	}
	answer, err := stepAfterRead(ctx, m, answerTask)
	if err != nil {
		return fmt.Errorf("the answer prompt: %w", err)
	}
	slot, _, done, err := f.greedySlot(m, max(len(edit), len(text), len(call.prompt), len(answer.prompt))+f.nGen+f.draftMax+1)
	if err != nil {
		return err
	}
	defer done()
	eog := eogBias(m)
	greedy := func(int) (*llama.Sampler, error) { return newChain(m, eog, llama.NewGreedy()) }
	workloads := []draftWorkload{
		{"edit", edit, greedy, nil, nil},
		{"text", text, func(rep int) (*llama.Sampler, error) {
			return newChain(m, eog, llama.NewTemp(1), llama.NewDist(uint32(textSeed+rep+1)))
		}, nil, nil},
	}
	if call.prompt != nil {
		workloads = append(workloads, draftWorkload{"edit-call", call.prompt, greedy, call.sources, nil},
			draftWorkload{"answer", answer.prompt, greedy, nil, answer.answer})
	}
	for _, w := range workloads {
		rows, err := draftRows(ctx, slot, w, f, base)
		if err != nil {
			return err
		}
		rep.Results = append(rep.Results, rows...)
	}
	if call.req == nil {
		return nil
	}
	rows, err := stepRows(ctx, m, call, f, base)
	if err != nil {
		return fmt.Errorf("the step rows: %w", err)
	}
	rep.Results = append(rep.Results, rows...)
	return nil
}

// eogBias is a logit bias of minus infinity on every end-of-generation
// token of m.
func eogBias(m *llama.Model) map[llama.Token]float32 {
	bias := map[llama.Token]float32{}
	for t := range llama.Token(m.VocabSize()) {
		if m.IsEOG(t) {
			bias[t] = float32(math.Inf(-1))
		}
	}
	return bias
}

// newChain returns a chain of the logit bias, then stages. On an error it
// closes the stages it did not add.
func newChain(m *llama.Model, bias map[llama.Token]float32, stages ...*llama.Sampler) (*llama.Sampler, error) {
	lb, err := m.NewLogitBias(bias)
	if err != nil {
		for _, s := range stages {
			s.Close()
		}
		return nil, err
	}
	stages = append([]*llama.Sampler{lb}, stages...)
	chain := llama.NewChain(true)
	for i, s := range stages {
		if err := chain.Add(s); err != nil {
			for _, rest := range stages[i:] {
				rest.Close()
			}
			chain.Close()
			return nil, err
		}
	}
	return chain, nil
}

// draftRows times w plain and drafting up to f.draftMax, f.reps times
// after a warm-up, in turn and each first in turn, so that both rows see
// the same load.
func draftRows(ctx context.Context, slot *llama.Slot, w draftWorkload, f benchFlags, base benchResult) ([]benchResult, error) {
	maxes := []int{0, f.draftMax}
	rows := make([]benchResult, len(maxes))
	for j, draftMax := range maxes {
		r := &rows[j]
		*r = base
		r.Test, r.NPrompt, r.NGen = fmt.Sprintf("%s-tg%d", w.name, f.nGen), len(w.prompt), f.nGen
		if draftMax > 0 {
			r.Test += fmt.Sprintf("+draft%d", draftMax)
			r.Draft = &draftStats{DraftMax: draftMax}
		}
	}
	for i := -1; i < f.reps; i++ { // i == -1 is the warm-up
		for k := range maxes {
			j := (i + 2 + k) % 2
			res, err := draftRun(ctx, slot, w.chain, i, engine.Request{Prompt: w.prompt, NPredict: f.nGen, DraftMax: maxes[j], Sources: w.sources, AnswerSources: w.answer})
			if err != nil {
				return nil, err
			}
			if i < 0 {
				continue
			}
			r := &rows[j]
			r.Samples = append(r.Samples, res.PerSecond())
			if d := r.Draft; d != nil {
				if i == 0 {
					d.Output = strings.ToValidUTF8(res.Text[:min(len(res.Text), outputShown)], "")
				}
				d.Drafted, d.Accepted, d.Decodes, d.Tokens = d.Drafted+res.Drafted, d.Accepted+res.Accepted, d.Decodes+res.Decodes, d.Tokens+len(res.Tokens)
			}
		}
	}
	for j := range rows {
		rows[j].AvgTS, rows[j].StdevTS = meanStdev(rows[j].Samples)
	}
	return rows, nil
}

// draftRun generates req with a fresh chain from newChain for repetition
// rep, so that a seeded chain samples the same tokens in both rows.
func draftRun(ctx context.Context, slot *llama.Slot, newChain func(rep int) (*llama.Sampler, error), rep int, req engine.Request) (*engine.Result, error) {
	chain, err := newChain(rep)
	if err != nil {
		return nil, err
	}
	defer chain.Close()
	req.Chain = chain
	return engine.Generate(ctx, slot, req)
}

// printDraft writes how the drafted tests decoded, under the table.
func printDraft(w io.Writer, rep *benchReport) {
	for _, r := range rep.Results {
		d := r.Draft
		if d == nil {
			continue
		}
		perDecode := "" // the step rows' clients do not count their decodes
		if d.Decodes > 0 {
			perDecode = fmt.Sprintf(", %.2f tokens per decode", float64(d.Tokens)/float64(d.Decodes))
		}
		fmt.Fprintf(w, "\n%s: accepted %d of %d draft tokens (%.0f%%)%s; the output starts %q\n", r.Test, d.Accepted, d.Drafted,
			100*float64(d.Accepted)/float64(max(d.Drafted, 1)), perDecode, d.Output)
	}
}
