package main

import (
	"context"
	"fmt"
	"io"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/llama"
)

// grammarStats is what the grammar rejected on a test of --grammar.
type grammarStats struct {
	Rejected int `json:"rejected"` // tokens the chain chose that the grammar refused
	Tokens   int `json:"n_tokens"`
}

// grammarCase is one row of the grammar table: the agent's call grammar
// for its six tools in the Hermes format, lazy (tool_choice auto: it wakes
// at <tool_call>) or required (from the first token), applied one way.
type grammarCase struct {
	name   string
	choice grammar.ChoiceMode // ChoiceNone: no grammar
	mode   llama.GrammarMode
}

var grammarCases = []grammarCase{
	{"none", grammar.ChoiceNone, llama.GrammarExact},
	{"lazy", grammar.ChoiceAuto, llama.GrammarExact},
	{"lazy+rejection-first", grammar.ChoiceAuto, llama.RejectionFirst},
	{"required", grammar.ChoiceRequired, llama.GrammarExact},
	{"required+rejection-first", grammar.ChoiceRequired, llama.RejectionFirst},
	{"required+grammar-first", grammar.ChoiceRequired, llama.GrammarFirst},
}

// grammarPrompt is a ChatML turn that asks for a call; the bench model's
// random weights ignore it, so the lazy grammar stays asleep (the cost of
// watching for the trigger) and the required one constrains every token.
const grammarPrompt = "<|im_start|>user\nRead main.go and tell me what it does.<|im_end|>\n<|im_start|>assistant\n"

// benchGrammar generates n_gen tokens greedily under each grammar case,
// f.reps times after a warm-up, with the grammar compiled once per case
// and reset before each run: the rows tgN+grammar=CASE.
func benchGrammar(ctx context.Context, m *llama.Model, f benchFlags, base benchResult, rep *benchReport) error {
	prompt, err := m.Tokenize(grammarPrompt, true, true)
	if err != nil {
		return err
	}
	defs, err := chat.ParseTools(tools.Default().Definitions())
	if err != nil {
		return err
	}
	format, err := callformat.NewWithOptions("hermes", defs, callformat.Options{})
	if err != nil {
		return err
	}
	slot, greedy, done, err := f.greedySlot(m, max(len(prompt)+f.nGen+1, 512))
	if err != nil {
		return err
	}
	defer done()
	for _, gc := range grammarCases {
		var g *llama.Sampler
		if gc.choice != grammar.ChoiceNone {
			cg, err := format.Grammar(grammar.CallOptions{Choice: grammar.Choice{Mode: gc.choice}})
			if err != nil {
				return err
			}
			if g, err = engine.CompileCalls(m, cg); err != nil {
				return err
			}
		}
		r := base
		r.Test, r.NPrompt, r.NGen = fmt.Sprintf("tg%d+grammar=%s", f.nGen, gc.name), len(prompt), f.nGen
		r.Grammar = &grammarStats{}
		err := func() error {
			defer closeSampler(g)
			for i := -1; i < f.reps; i++ { // i == -1 is the warm-up
				if g != nil {
					g.Reset()
				}
				res, err := engine.Generate(ctx, slot, engine.Request{Prompt: prompt, Chain: greedy, Grammar: g, GrammarMode: gc.mode, NPredict: f.nGen})
				if err != nil {
					return err
				}
				if i < 0 {
					continue
				}
				r.Samples = append(r.Samples, res.PerSecond())
				r.Grammar.Rejected += res.Rejections
				r.Grammar.Tokens += len(res.Tokens)
			}
			return nil
		}()
		if err != nil {
			return fmt.Errorf("grammar %s: %w", gc.name, err)
		}
		r.AvgTS, r.StdevTS = meanStdev(r.Samples)
		rep.Results = append(rep.Results, r)
	}
	return nil
}

func closeSampler(s *llama.Sampler) {
	if s != nil {
		s.Close()
	}
}

// printGrammar prints each grammar test's cost per token against the test
// without a grammar.
func printGrammar(w io.Writer, rep *benchReport) {
	var none float64
	for _, r := range rep.Results {
		if r.Grammar == nil {
			continue
		}
		if none == 0 {
			none = r.AvgTS
			fmt.Fprintf(w, "\ngrammar cost per token (greedy, the agent's six tools, Hermes format):\n")
		}
		g := r.Grammar
		fmt.Fprintf(w, "  %-38s %8.2f t/s  %+7.3f ms/token  %3.0f%% rejected\n", r.Test, r.AvgTS,
			1000/r.AvgTS-1000/none, 100*float64(g.Rejected)/float64(max(g.Tokens, 1)))
	}
}
