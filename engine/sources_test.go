package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/grammar"
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
	res, slot := generateOn(t, c, cfg, gbnf, engine.Request{Prompt: toks, NPredict: n, DraftMax: 16, Sources: sources})
	return draftRun{Text: res.Text, Tokens: res.Tokens, StopType: res.StopType, Slot: append([]llama.Token(nil), slot.Tokens()...), res: res}
}

// generateOn runs req on a fresh slot of c with the chain cfg makes, and
// gbnf's grammar when set, and returns the result and the slot.
func generateOn(t *testing.T, c *llama.Context, cfg sampler.Config, gbnf string, req engine.Request) (*engine.Result, *llama.Slot) {
	t.Helper()
	ch, err := engine.Chain(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	if gbnf != "" {
		if req.Grammar, err = engine.CompileGrammar(c.Model(), gbnf); err != nil {
			t.Fatal(err)
		}
		defer req.Grammar.Close()
	}
	slot, err := llama.NewSlot(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	req.Chain = ch
	res, err := engine.Generate(context.Background(), slot, req)
	if err != nil {
		t.Fatal(err)
	}
	return res, slot
}

// TestAnswerSources checks Request.AnswerSources with DraftInCalls: outside
// a call (a lazy grammar that a random model never wakes, or no grammar)
// drafts come from the answer sources, and only from them; the output is
// the plain one, greedy and sampled. The answer source is the plain
// output itself, as a reply that quotes a tool result would copy it.
func TestAnswerSources(t *testing.T) {
	c := newContext(t, load(t, testmodels.TinyQwen15F32), 1024)
	m := c.Model()
	lazy, err := grammar.ToolCalls(grammar.Hermes, []grammar.Tool{readFileTool}, grammar.CallOptions{})
	if err != nil || !lazy.Lazy {
		t.Fatalf("auto grammar: %v", err)
	}
	greedy := sampler.Defaults()
	greedy.Greedy = true
	sampled := sampler.Defaults()
	sampled.Seed = 7
	drafted := 0
	for _, lazyGrammar := range []bool{false, true} {
		for name, cfg := range map[string]sampler.Config{"greedy": greedy, "sampled": sampled} {
			for i, prompt := range draftPrompts() {
				t.Run(fmt.Sprintf("lazy=%v/%s/%d", lazyGrammar, name, i), func(t *testing.T) {
					toks, _ := m.Tokenize(prompt, true, true)
					gen := func(draftMax int, answer [][]llama.Token) *engine.Result {
						ch, err := engine.Chain(c, cfg)
						if err != nil {
							t.Fatal(err)
						}
						defer ch.Close()
						var g *llama.Sampler
						if lazyGrammar {
							if g, err = engine.CompileCalls(m, lazy); err != nil {
								t.Fatal(err)
							}
							defer g.Close()
						}
						slot, err := llama.NewSlot(c, 0)
						if err != nil {
							t.Fatal(err)
						}
						res, err := engine.Generate(context.Background(), slot, engine.Request{Prompt: toks, Chain: ch, Grammar: g, NPredict: 32,
							DraftMax: draftMax, DraftInCalls: true, AnswerSources: answer, Sources: [][]llama.Token{toks}})
						if err != nil {
							t.Fatal(err)
						}
						return res
					}
					plain := gen(0, nil)
					spec, none := gen(16, [][]llama.Token{plain.Tokens}), gen(16, nil)
					if diff := cmp.Diff(plain.Tokens, spec.Tokens); diff != "" {
						t.Errorf("drafting from answer sources changed the tokens (-plain +drafted):\n%s", diff)
					}
					if none.Drafted > 0 {
						t.Errorf("without answer sources, %d tokens were drafted outside a call", none.Drafted)
					}
					drafted += spec.Accepted
				})
			}
		}
	}
	if drafted == 0 {
		t.Error("no token drafted from the answer sources was accepted")
	}
}
