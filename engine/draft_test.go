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

// draftPrompts are prompts for comparing drafted and plain decoding: some
// ask to copy text they hold, which prompt lookup drafts from.
func draftPrompts() []string {
	var file strings.Builder
	for i := range 24 {
		fmt.Fprintf(&file, "\tif err := step%d(ctx, cfg); err != nil {\n\t\treturn fmt.Errorf(\"step %d: %%w\", err)\n\t}\n", i, i)
	}
	return []string{
		"<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n",
		"<|im_start|>user\nWrite a haiku about the sea.<|im_end|>\n<|im_start|>assistant\n",
		"The quick brown fox jumps over the lazy dog. The quick brown fox",
		"a b c d e f g a b c d e f g a b c d e f g a b c",
		"func main() {\n\tfmt.Println(\"hello\")\n}\n\nfunc main() {\n",
		"<|im_start|>user\nHere is main.go:\n" + file.String() + "Repeat the file exactly.<|im_end|>\n<|im_start|>assistant\n",
		"1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,",
		"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"main.go\"}}\n</tool_call>\n<tool_call>\n",
	}
}

// draftRun is one generation: its result and the slot's state after it.
type draftRun struct {
	Text     string
	Tokens   []llama.Token
	StopType string
	Slot     []llama.Token // the slot's tokens after generation
	res      *engine.Result
}

// runDraft generates from prompt on a fresh slot of c with the chain cfg
// makes (and gbnf's grammar when set), drafting up to draftMax tokens.
func runDraft(t *testing.T, c *llama.Context, cfg sampler.Config, gbnf, prompt string, n, draftMax int, draft func([]llama.Token, int) []llama.Token) draftRun {
	t.Helper()
	m := c.Model()
	ch, err := engine.Chain(c, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	var g *llama.Sampler
	if gbnf != "" {
		if g, err = engine.CompileGrammar(m, gbnf); err != nil {
			t.Fatal(err)
		}
		defer g.Close()
	}
	slot, err := llama.NewSlot(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	toks, _ := m.Tokenize(prompt, true, true)
	res, err := engine.Generate(context.Background(), slot, engine.Request{Prompt: toks, Chain: ch, Grammar: g, NPredict: n, DraftMax: draftMax, Draft: draft})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.SeqPosMax(0); got != slot.Len()-1 {
		t.Errorf("the slot holds %d tokens, the KV cache positions up to %d", slot.Len(), got)
	}
	return draftRun{Text: res.Text, Tokens: res.Tokens, StopType: res.StopType, Slot: append([]llama.Token(nil), slot.Tokens()...), res: res}
}

var draftGrammar = `root ::= "\"" char{0,400} "\""` + "\n" + `char ::= [^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})`

// echoDraft guesses that the last max tokens repeat. Unlike prompt
// lookup, which drafts only when drafting pays, it drafts at every step,
// so the comparison below verifies many drafts, some of them accepted (a
// random model often repeats itself).
func echoDraft(toks []llama.Token, max int) []llama.Token {
	return toks[len(toks)-min(max, len(toks)):]
}

// TestDraftSameOutput decodes every prompt with and without drafting (by
// prompt lookup, and by echoDraft), on two models, greedy and sampled,
// with and without a grammar: the text, the tokens, the stop and the
// slot's tokens after it are the same.
func TestDraftSameOutput(t *testing.T) {
	for _, model := range []string{testmodels.TinyQwen15F32, testmodels.TinyLlama3Q8} {
		c := newContext(t, load(t, model), 1024)
		greedy := sampler.Defaults()
		greedy.Greedy = true
		sampled := sampler.Defaults()
		sampled.Seed = 7
		drafted, accepted := 0, 0
		for _, tc := range []struct {
			name string
			cfg  sampler.Config
			gbnf string
		}{{"greedy", greedy, ""}, {"greedy grammar", greedy, draftGrammar}, {"sampled", sampled, ""}, {"sampled grammar", sampled, draftGrammar}} {
			for i, prompt := range draftPrompts() {
				t.Run(fmt.Sprintf("%s/%s/%d", model, tc.name, i), func(t *testing.T) {
					plain := runDraft(t, c, tc.cfg, tc.gbnf, prompt, 32, 0, nil)
					for _, draft := range []func([]llama.Token, int) []llama.Token{nil, echoDraft} {
						spec := runDraft(t, c, tc.cfg, tc.gbnf, prompt, 32, 5, draft)
						if diff := cmp.Diff(plain, spec, cmp.AllowUnexported(draftRun{}), cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "res" }, cmp.Ignore())); diff != "" {
							t.Errorf("drafting (echo %v) changed the output (-plain +drafted):\n%s", draft != nil, diff)
						}
						if spec.res.Accepted > spec.res.Drafted || spec.res.Decodes > len(spec.Tokens) {
							t.Errorf("accepted %d of %d drafted in %d decodes for %d tokens", spec.res.Accepted, spec.res.Drafted, spec.res.Decodes, len(spec.Tokens))
						}
						drafted += spec.res.Drafted
						accepted += spec.res.Accepted
					}
				})
			}
		}
		t.Logf("%s: accepted %d of %d drafted tokens", model, accepted, drafted)
		if accepted == 0 {
			t.Errorf("%s: no draft token accepted over all prompts", model)
		}
	}
}

// TestDraftTeacherForced drafts the greedy continuation itself, taken from
// a plain run: every draft is accepted, and each decode yields
// DraftMax+1 tokens.
func TestDraftTeacherForced(t *testing.T) {
	c := newContext(t, load(t, testmodels.TinyQwen15F32), 1024)
	cfg := sampler.Defaults()
	cfg.Greedy = true
	for i, prompt := range draftPrompts() {
		plain := runDraft(t, c, cfg, "", prompt, 40, 0, nil)
		promptLen := len(plain.Slot) - len(plain.Tokens) + 1
		for _, k := range []int{1, 3, 8} {
			t.Run(fmt.Sprintf("%d/draft%d", i, k), func(t *testing.T) {
				teacher := func(toks []llama.Token, max int) []llama.Token {
					gen := len(toks) - promptLen
					return plain.Tokens[min(gen, len(plain.Tokens)):min(gen+max, len(plain.Tokens))]
				}
				spec := runDraft(t, c, cfg, "", prompt, 40, k, teacher)
				if diff := cmp.Diff(plain.Tokens, spec.Tokens); diff != "" {
					t.Fatalf("tokens differ (-plain +drafted):\n%s", diff)
				}
				r := spec.res
				if r.Accepted != r.Drafted {
					t.Errorf("accepted %d of %d drafted tokens, want all", r.Accepted, r.Drafted)
				}
				// The first token comes from the prefill; each decode then
				// yields k+1, and the last token is never decoded.
				if want := (len(spec.Tokens) - 1 + k) / (k + 1); r.Decodes > want {
					t.Errorf("%d decodes for %d tokens drafting %d, want at most %d", r.Decodes, len(spec.Tokens), k, want)
				}
				// The continuation with its third token wrong: two of each
				// draft are kept, and the output stays the same.
				wrong := func(toks []llama.Token, max int) []llama.Token {
					d := append([]llama.Token(nil), teacher(toks, max)...)
					if len(d) > 2 {
						d[2] = (d[2] + 1) % llama.Token(c.Model().VocabSize())
					}
					return d
				}
				spec = runDraft(t, c, cfg, "", prompt, 40, k, wrong)
				if diff := cmp.Diff(plain.Tokens, spec.Tokens); diff != "" {
					t.Fatalf("a wrong draft token: tokens differ (-plain +drafted):\n%s", diff)
				}
				if r := spec.res; k > 2 && (r.Accepted == 0 || r.Accepted >= r.Drafted) {
					t.Errorf("a wrong draft token: accepted %d of %d drafted tokens, want some", r.Accepted, r.Drafted)
				}
			})
		}
	}
}

// TestDraftCopies decodes greedily after text that repeats: prompt lookup
// drafts from the repeats, and some of the draft is accepted, so it takes
// fewer decodes than tokens. (The random test models copy only such
// repeats; what a model that copies a file gains, TestDraftTeacherForced
// and BenchmarkDraft show by drafting the continuation itself.)
func TestDraftCopies(t *testing.T) {
	for _, model := range []string{testmodels.TinyQwen15F32, testmodels.TinyLlama3Q8} {
		c := newContext(t, load(t, model), 1024)
		cfg := sampler.Defaults()
		cfg.Greedy = true
		r := runDraft(t, c, cfg, "", "a b c d e f g a b c d e f g a b c d e f g a b c", 32, 5, nil).res
		if r.Accepted == 0 || r.Decodes >= len(r.Tokens)-1 {
			t.Errorf("%s: accepted %d of %d draft tokens, %d decodes for %d tokens; want some accepted, fewer decodes",
				model, r.Accepted, r.Drafted, r.Decodes, len(r.Tokens))
		}
	}
}

// TestDraftInCalls checks Request.DraftInCalls: a draft is asked for only
// while the grammar is awake. A grammar that is not lazy is awake from the
// start; a lazy one waits for its trigger, which a random model does not
// write; without a grammar nothing is drafted. The output is the plain one
// in every case.
func TestDraftInCalls(t *testing.T) {
	c := newContext(t, load(t, testmodels.TinyQwen15F32), 1024)
	m := c.Model()
	cfg := sampler.Defaults()
	cfg.Greedy = true
	lazy, err := grammar.ToolCalls(grammar.Hermes, []grammar.Tool{readFileTool}, grammar.CallOptions{})
	if err != nil || !lazy.Lazy {
		t.Fatalf("auto grammar: %v", err)
	}
	prompt, _ := m.Tokenize(draftPrompts()[5], true, true)
	for _, tc := range []struct {
		name  string
		gr    func() (*llama.Sampler, error)
		draft bool // whether drafts are asked for
	}{
		{"none", func() (*llama.Sampler, error) { return nil, nil }, false},
		{"lazy", func() (*llama.Sampler, error) { return engine.CompileCalls(m, lazy) }, false},
		{"required", func() (*llama.Sampler, error) { return engine.CompileGrammar(m, draftGrammar) }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gen := func(draftMax int, draft func([]llama.Token, int) []llama.Token) *engine.Result {
				ch, err := engine.Chain(c, cfg)
				if err != nil {
					t.Fatal(err)
				}
				defer ch.Close()
				g, err := tc.gr()
				if err != nil {
					t.Fatal(err)
				}
				if g != nil {
					defer g.Close()
				}
				slot, err := llama.NewSlot(c, 0)
				if err != nil {
					t.Fatal(err)
				}
				res, err := engine.Generate(context.Background(), slot, engine.Request{Prompt: prompt, Chain: ch, Grammar: g, NPredict: 24,
					DraftMax: draftMax, Draft: draft, DraftInCalls: true})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			asked := 0
			counted := func(toks []llama.Token, max int) []llama.Token { asked++; return echoDraft(toks, max) }
			plain, spec := gen(0, nil), gen(5, counted)
			if diff := cmp.Diff(plain.Tokens, spec.Tokens); diff != "" {
				t.Errorf("tokens differ (-plain +drafted):\n%s", diff)
			}
			if (asked > 0) != tc.draft || (spec.Drafted > 0) != tc.draft {
				t.Errorf("drafts asked %d times, %d tokens drafted; want drafting %v", asked, spec.Drafted, tc.draft)
			}
		})
	}
}

// TestDraftForced checks that inside a call the drafter proposes the text
// the grammar forces. The demo model, greedy under a required read_file
// call whose name and punctuation leave it no choice, writes most of that
// text in the tokens it is drafted in (not all: it splits a few words
// otherwise), so much of the call comes from accepted drafts without a
// source or a repetition to copy; the output is the plain one. Its steps
// are timed evenly (engine.EvenSteps), so the pace follows acceptance alone.
func TestDraftForced(t *testing.T) {
	defer engine.EvenSteps()()
	m, err := llama.LoadModel(context.Background(), "../demo/model.gguf", llama.ModelParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	c := newContext(t, m, 1024)
	const gbnf = `root ::= "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"" [a-zA-Z0-9_./]{1,40} "\"}}\n</tool_call>"`
	prompt, err := m.Tokenize("<|im_start|>user\nTestTotal fails in total.go. Fix it.<|im_end|>\n<|im_start|>assistant\n", false, true)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sampler.Defaults()
	cfg.Greedy = true
	gen := func(draftMax int) *engine.Result {
		ch, err := engine.Chain(c, cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer ch.Close()
		g, err := engine.CompileGrammar(m, gbnf)
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		slot, err := llama.NewSlot(c, 0)
		if err != nil {
			t.Fatal(err)
		}
		res, err := engine.Generate(context.Background(), slot, engine.Request{Prompt: prompt, Chain: ch, Grammar: g, NPredict: 64, DraftMax: draftMax, DraftInCalls: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	plain, spec := gen(0), gen(16)
	if diff := cmp.Diff(plain.Tokens, spec.Tokens); diff != "" {
		t.Errorf("tokens differ (-plain +drafted):\n%s", diff)
	}
	t.Logf("%d tokens %q: %d drafted, %d accepted, %d decodes", len(spec.Tokens), spec.Text, spec.Drafted, spec.Accepted, spec.Decodes)
	if spec.Accepted < len(spec.Tokens)/3 {
		t.Errorf("%d of %d tokens came from accepted drafts (%d drafted); want at least a third", spec.Accepted, len(spec.Tokens), spec.Drafted)
	}
}

// TestPaceKeptReplies generates each prompt twice with one Pace, as an
// agent's steps share one: the second reply begins as the first, which
// the Pace kept, and most of it comes from drafts of the kept reply,
// greedy, under a grammar and sampled with the same seed; both outputs
// are the plain one. Its steps are timed evenly (engine.EvenSteps).
func TestPaceKeptReplies(t *testing.T) {
	defer engine.EvenSteps()()
	c := newContext(t, load(t, testmodels.TinyQwen15F32), 1024)
	m := c.Model()
	greedy := sampler.Defaults()
	greedy.Greedy = true
	sampled := sampler.Defaults()
	sampled.Seed = 7
	cases := []struct {
		name string
		cfg  sampler.Config
		gbnf string
	}{{"greedy grammar", greedy, draftGrammar}, {"greedy", greedy, ""}, {"sampled", sampled, ""}}
	if testing.Short() {
		cases = cases[:1] // the race detector's run
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tokens, accepted := 0, 0
			for i, prompt := range draftPrompts() {
				toks, _ := m.Tokenize(prompt, true, true)
				gen := func(draftMax int, pace *engine.Pace) *engine.Result {
					res, _ := generateOn(t, c, tc.cfg, tc.gbnf, engine.Request{Prompt: toks, NPredict: 48, DraftMax: draftMax, Pace: pace})
					return res
				}
				plain, pace := gen(0, nil), &engine.Pace{}
				first, second := gen(16, pace), gen(16, pace)
				for name, res := range map[string]*engine.Result{"first": first, "second": second} {
					if diff := cmp.Diff(plain.Tokens, res.Tokens); diff != "" {
						t.Errorf("prompt %d: the %s drafted reply's tokens differ (-plain +drafted):\n%s", i, name, diff)
					}
				}
				tokens, accepted = tokens+len(second.Tokens), accepted+second.Accepted
				t.Logf("prompt %d: %d tokens; first %d of %d drafted accepted, second %d of %d", i, len(plain.Tokens), first.Accepted, first.Drafted, second.Accepted, second.Drafted)
			}
			if accepted < 4*tokens/5 {
				t.Errorf("the second replies took %d of %d tokens from accepted drafts; want at least four fifths", accepted, tokens)
			}
		})
	}
}
