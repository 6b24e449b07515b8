package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
	"github.com/loopagent/loop/sampler"
)

// TestSourcesSameOutput decodes with drafts from sources (a file the
// prompt shows numbered, as read_file shows it, and the prompts
// themselves) and without drafting, greedy and sampled, with and without
// a grammar: the output is the same.
func TestSourcesSameOutput(t *testing.T) {
	var numbered, raw strings.Builder
	for i := range 24 {
		line := fmt.Sprintf("\tif err := step%d(ctx, cfg); err != nil { return err }", i)
		fmt.Fprintf(&numbered, "%d| %s\n", i+1, line)
		raw.WriteString(line + "\n")
	}
	prompts := append(draftPrompts(), "<|im_start|>user\nHere is main.go:\n"+numbered.String()+"Repeat the file without the numbers.<|im_end|>\n<|im_start|>assistant\n")
	models := []string{testmodels.TinyQwen15F32, testmodels.TinyLlama3Q8}
	if testing.Short() {
		models = models[:1] // the race detector's run: one model is enough to find a race
	}
	for _, model := range models {
		c := newContext(t, load(t, model), 1024)
		m := c.Model()
		file, _ := m.Tokenize(raw.String(), false, false)
		greedy := sampler.Defaults()
		greedy.Greedy = true
		sampled := sampler.Defaults()
		sampled.Seed = 7
		drafted := 0
		for _, tc := range []struct {
			name string
			cfg  sampler.Config
			gbnf string
		}{{"greedy", greedy, ""}, {"greedy grammar", greedy, draftGrammar}, {"sampled", sampled, ""}} {
			for i, prompt := range prompts {
				t.Run(fmt.Sprintf("%s/%s/%d", model, tc.name, i), func(t *testing.T) {
					plain := runDraft(t, c, tc.cfg, tc.gbnf, prompt, 48, 0, nil)
					toks, _ := m.Tokenize(prompt, true, true)
					spec := runSources(t, c, tc.cfg, tc.gbnf, toks, 48, [][]llama.Token{file, toks})
					drafted += spec.res.Drafted
					if diff := cmp.Diff(plain, spec, cmp.AllowUnexported(draftRun{}), cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "res" }, cmp.Ignore())); diff != "" {
						t.Errorf("drafting from sources changed the output (-plain +drafted):\n%s", diff)
					}
				})
			}
		}
		if drafted == 0 {
			t.Errorf("%s: nothing was drafted from the sources", model)
		}
	}
}

// runSources generates from toks on a fresh slot with drafts from
// sources, and prompt lookup.
func runSources(t *testing.T, c *llama.Context, cfg sampler.Config, gbnf string, toks []llama.Token, n int, sources [][]llama.Token) draftRun {
	t.Helper()
	ch, err := engine.Chain(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	var g *llama.Sampler
	if gbnf != "" {
		if g, err = engine.CompileGrammar(c.Model(), gbnf); err != nil {
			t.Fatal(err)
		}
		defer g.Close()
	}
	slot, err := llama.NewSlot(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, err := engine.Generate(context.Background(), slot, engine.Request{Prompt: toks, Chain: ch, Grammar: g, NPredict: n, DraftMax: 16, Sources: sources})
	if err != nil {
		t.Fatal(err)
	}
	return draftRun{Text: res.Text, Tokens: res.Tokens, StopType: res.StopType, Slot: append([]llama.Token(nil), slot.Tokens()...), res: res}
}
