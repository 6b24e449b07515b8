package llama_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// The grammar of seed 004 Example 1: one read_file call with a short path.
const toolCallGBNF = `root ::= "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"" [a-zA-Z./]{1,20} "\"}}\n</tool_call>"`

func TestGrammarConstrainsOutput(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 512})
	ctx := context.Background()
	for seed := uint32(1); seed <= 3; seed++ {
		g, err := m.NewGrammar(toolCallGBNF, "root")
		if err != nil {
			t.Fatal(err)
		}
		ch := llama.NewChain(false)
		for _, s := range []*llama.Sampler{g, llama.NewTemp(0.8), llama.NewDist(seed)} {
			if err := ch.Add(s); err != nil {
				t.Fatal(err)
			}
		}
		slot, _ := llama.NewSlot(c, 0)
		if _, err := slot.Prefill(ctx, tokenize(t, m, samplePrompt)); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		eos := false
		for range 80 {
			tok, err := ch.Sample(c, -1)
			if err != nil {
				t.Fatalf("seed %d: Sample: %v", seed, err)
			}
			if m.IsEOG(tok) {
				eos = true
				break
			}
			p, _ := m.TokenPiece(tok, false)
			out.WriteString(p)
			if err := slot.Append(ctx, tok); err != nil {
				t.Fatal(err)
			}
		}
		s := out.String()
		if !eos || !strings.HasPrefix(s, "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"") || !strings.HasSuffix(s, "\"}}\n</tool_call>") {
			t.Errorf("seed %d: output %q (eos %v) does not match the grammar", seed, s, eos)
		}
		ch.Close()
	}
}

func TestGrammarErrors(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	for _, tt := range []struct{ name, gbnf, root string }{
		{"empty", "", "root"},
		{"syntax", `root ::= "a`, "root"},
		{"undefined rule", `root ::= item`, "root"},
		{"missing root", `start ::= "a"`, "root"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, err := m.NewGrammar(tt.gbnf, tt.root)
			if err == nil {
				g.Close()
				t.Fatalf("NewGrammar(%q) succeeded", tt.gbnf)
			}
			if !errors.Is(err, llama.ErrGrammar) {
				t.Errorf("NewGrammar(%q) = %v, want ErrGrammar", tt.gbnf, err)
			}
			t.Logf("%v", err)
		})
	}
	if _, err := m.NewLazyGrammar(`root ::= "a"`, "", llama.LazyTriggers{Words: []string{""}}); !errors.Is(err, llama.ErrGrammar) {
		t.Errorf("lazy grammar with an empty trigger word = %v, want ErrGrammar", err)
	}
	if _, err := m.NewLazyGrammar(`root ::= "a"`, "", llama.LazyTriggers{}); !errors.Is(err, llama.ErrGrammar) {
		t.Errorf("lazy grammar without triggers = %v, want ErrGrammar", err)
	}
}

// TestGrammarRejects checks that a token the grammar does not allow, EOG
// included, is refused with an error where llama.cpp would abort.
func TestGrammarRejects(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	g, err := m.NewGrammar(`root ::= "yes" | "no"`, "")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	yes := tokenize(t, m, "yes")
	other := tokenize(t, m, "maybe")
	if !g.Allows(yes[0]) || g.Allows(other[0]) || g.Allows(m.EOS()) {
		t.Fatalf("Allows: yes %v, maybe %v, eos %v; want true, false, false", g.Allows(yes[0]), g.Allows(other[0]), g.Allows(m.EOS()))
	}
	if err := g.Accept(m.EOS()); !errors.Is(err, llama.ErrGrammar) {
		t.Errorf("Accept(EOS) before the grammar is complete = %v, want ErrGrammar", err)
	}
	if err := g.Accept(other[0]); !errors.Is(err, llama.ErrGrammar) {
		t.Errorf("Accept(maybe) = %v, want ErrGrammar", err)
	}
	for _, tok := range yes {
		if err := g.Accept(tok); err != nil {
			t.Fatalf("Accept(yes) = %v", err)
		}
	}
	if !g.Allows(m.EOS()) {
		t.Errorf("after \"yes\" the grammar should allow EOS")
	}
}

// TestGrammarReused: a grammar made again from the same text is a clone
// of the model's kept copy, pristine and independent of the first; a lazy
// grammar with the same text is not that copy, and a third grammar
// replaces it.
func TestGrammarReused(t *testing.T) {
	m := load(t, testmodels.TinyQwen3F16)
	const gbnf = `root ::= "yes" | "no"`
	yes, no := tokenize(t, m, "yes"), tokenize(t, m, "no")
	g1, err := m.NewGrammar(gbnf, "")
	if err != nil {
		t.Fatal(err)
	}
	defer g1.Close()
	for _, tok := range yes {
		if err := g1.Accept(tok); err != nil {
			t.Fatal(err)
		}
	}
	g2, err := m.NewGrammar(gbnf, "")
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	if !g2.Allows(no[0]) || g2.Allows(m.EOS()) {
		t.Errorf("the second grammar is not pristine: allows no %v, EOS %v", g2.Allows(no[0]), g2.Allows(m.EOS()))
	}
	if err := g2.Accept(no[0]); err != nil {
		t.Fatal(err)
	}
	if !g1.Allows(m.EOS()) || g1.Allows(no[0]) {
		t.Errorf("accepting on the second changed the first")
	}
	trig := tokenize(t, m, "<tool_call>")
	lazy, err := m.NewLazyGrammar(gbnf, "", llama.LazyTriggers{Tokens: trig})
	if err != nil {
		t.Fatal(err)
	}
	defer lazy.Close()
	if free := tokenize(t, m, "anything"); !lazy.Allows(free[0]) {
		t.Error("the lazy grammar with the same text constrains before its trigger")
	}
	other, err := m.NewGrammar(`root ::= "no"`, "")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if other.Allows(yes[0]) {
		t.Error("a new text got the kept grammar")
	}
}

// TestLazyGrammar checks that a lazy grammar leaves the text before its
// trigger token free and constrains what follows.
func TestLazyGrammar(t *testing.T) {
	m := load(t, testmodels.TinyQwen3F16) // <tool_call> is one token here
	trig := tokenize(t, m, "<tool_call>")
	if len(trig) != 1 {
		t.Fatalf("<tool_call> is %d tokens in the Qwen3 vocabulary, want 1", len(trig))
	}
	g, err := m.NewLazyGrammar(`root ::= "<tool_call>" "{}"`, "root", llama.LazyTriggers{Tokens: trig})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	free := tokenize(t, m, "anything")
	if !g.Allows(free[0]) {
		t.Errorf("a lazy grammar before its trigger should allow any token")
	}
	if err := g.Accept(free[0]); err != nil {
		t.Fatal(err)
	}
	if err := g.Accept(trig[0]); err != nil {
		t.Fatalf("Accept(trigger) = %v", err)
	}
	if g.Allows(free[0]) || !g.Allows(tokenize(t, m, "{}")[0]) {
		t.Errorf("after the trigger only \"{}\" may follow")
	}
}

// TestLazyGrammarWord triggers a lazy grammar with a word: the grammar sees
// the text from the word on.
func TestLazyGrammarWord(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32) // <tool_call> is several tokens here
	g, err := m.NewLazyGrammar(`root ::= "<tool_call>" [0-9]+`, "", llama.LazyTriggers{Words: []string{"<tool_call>"}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, tok := range tokenize(t, m, "free text <tool_call>") {
		if err := g.Accept(tok); err != nil {
			t.Fatalf("Accept before and at the trigger: %v", err)
		}
	}
	digit, letter := tokenize(t, m, "7")[0], tokenize(t, m, "x")[0]
	if !g.Allows(digit) || g.Allows(letter) {
		t.Errorf("after the trigger: Allows(7) = %v, Allows(x) = %v; want true, false", g.Allows(digit), g.Allows(letter))
	}
}

// TestLazyGrammarStart wakes a lazy grammar with a start word: at the
// start of the output, after white space, and never after other text.
func TestLazyGrammarStart(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	digit, letter := tokenize(t, m, "7")[0], tokenize(t, m, "x")[0]
	for _, c := range []struct {
		out  string
		wake bool
	}{{"{\"name\"", true}, {"\n  {\"name\"", true}, {"ok {\"name\"", false}, {"{\"path\"", false}} {
		g, err := m.NewLazyGrammar(`root ::= "{\"name\"" [0-9]+`, "", llama.LazyTriggers{Starts: []string{`{"name"`}})
		if err != nil {
			t.Fatal(err)
		}
		for _, tok := range tokenize(t, m, c.out) {
			if err := g.Accept(tok); err != nil {
				t.Fatalf("%q: Accept: %v", c.out, err)
			}
		}
		if woke := !g.Allows(letter); woke != c.wake || !g.Allows(digit) {
			t.Errorf("after %q: awake %v, Allows(7) %v; want awake %v", c.out, woke, g.Allows(digit), c.wake)
		}
		g.Close()
	}
}

// TestSamplerApply runs llama.cpp samplers on a fixed logit vector: the
// seed 000 Example 6 setting (min_p 0.05 then temperature 1.0) keeps the
// three plausible tokens and gives read_file 0.7662.
func TestSamplerApply(t *testing.T) {
	logits := []float32{4.0, 2.5, 1.5}
	for range 20 {
		logits = append(logits, -0.5)
	}
	cands := make([]llama.TokenData, len(logits))
	for i, l := range logits {
		cands[i] = llama.TokenData{ID: llama.Token(i), Logit: l}
	}
	ch := llama.NewChain(true)
	defer ch.Close()
	ch.Add(llama.NewMinP(0.05, 1))
	ch.Add(llama.NewTemp(1.0))
	ch.Add(llama.NewDist(1))
	sel, n, err := ch.Apply(cands)
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 || sel < 0 || sel >= n {
		t.Fatalf("Apply kept %d candidates and selected %d, want 3 and one of them", n, sel)
	}
	var p0 float32
	for _, c := range cands[:n] {
		if c.ID == 0 {
			p0 = c.P
		}
	}
	if math.Abs(float64(p0)-0.7662) > 5e-5 {
		t.Errorf("P(read_file) = %.5f, want 0.7662", p0)
	}
	if ch.String() != "chain[min-p temp dist]" {
		t.Errorf("chain = %s", ch)
	}
}

// TestEverySampler builds each of llama.cpp's samplers into one chain and
// samples from it.
func TestEverySampler(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 256})
	slot, _ := llama.NewSlot(c, 0)
	if _, err := slot.Prefill(context.Background(), tokenize(t, m, samplePrompt)); err != nil {
		t.Fatal(err)
	}
	dry, err := m.NewDRY(0.8, 1.75, 2, 64, []string{"\n", ":"})
	if err != nil {
		t.Fatal(err)
	}
	bias, _ := m.NewLogitBias(map[llama.Token]float32{10: 1})
	infill, _ := m.NewInfill()
	for _, chain := range [][]*llama.Sampler{
		{bias, llama.NewPenalties(64, 1.1, 0.1, 0.1), dry, llama.NewTopNSigma(2), llama.NewTopK(40), llama.NewTypical(0.95, 1),
			llama.NewTopP(0.95, 1), llama.NewMinP(0.05, 1), llama.NewXTC(0.5, 0.1, 1, 1), llama.NewTempExt(0.8, 0.2, 1), infill, llama.NewDist(1)},
		{llama.NewTemp(0.8), llama.NewMirostat(m.VocabSize(), 1, 5, 0.1, 100)},
		{llama.NewTemp(0.8), llama.NewMirostatV2(1, 5, 0.1)},
		{llama.NewGreedy()},
	} {
		ch := llama.NewChain(false)
		for _, s := range chain {
			if err := ch.Add(s); err != nil {
				t.Fatal(err)
			}
		}
		if tok, err := ch.Sample(c, -1); err != nil || tok < 0 {
			t.Errorf("%s: Sample = %d, %v", ch, tok, err)
		}
		ch.Close()
	}
}

func TestChainWithoutSelection(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 256})
	slot, _ := llama.NewSlot(c, 0)
	if _, err := slot.Prefill(context.Background(), tokenize(t, m, "hello")); err != nil {
		t.Fatal(err)
	}
	ch := llama.NewChain(true)
	defer ch.Close()
	ch.Add(llama.NewTopK(10))
	if _, err := ch.Sample(c, -1); err == nil || !strings.Contains(err.Error(), "selected no token") {
		t.Errorf("Sample with a chain that selects nothing = %v, want an error", err)
	}
}

// TestSampleGrammarModes generates the seed 004 Example 1 call with the
// grammar outside the chain in each mode: all follow the grammar,
// rejection-first masks the full vocabulary only on the tokens it
// rejected, and exact checks candidates one by one.
func TestSampleGrammarModes(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 512})
	ctx := context.Background()
	for _, mode := range []llama.GrammarMode{llama.GrammarExact, llama.RejectionFirst, llama.GrammarFirst} {
		g, err := m.NewGrammar(toolCallGBNF, "")
		if err != nil {
			t.Fatal(err)
		}
		ch := llama.NewChain(true)
		ch.Add(llama.NewTopK(40))
		ch.Add(llama.NewTemp(0.8))
		ch.Add(llama.NewDist(7))
		slot, _ := llama.NewSlot(c, 0)
		if _, err := slot.Prefill(ctx, tokenize(t, m, samplePrompt)); err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		rejections, n := 0, 0
		for ; n < 80; n++ {
			tok, step, err := ch.SampleGrammar(c, -1, g, mode)
			if err != nil {
				t.Fatalf("mode %d: SampleGrammar: %v", mode, err)
			}
			if step.Rejected {
				rejections++
			}
			if m.IsEOG(tok) {
				break
			}
			p, _ := m.TokenPiece(tok, false)
			out.WriteString(p)
			slot.Append(ctx, tok)
		}
		s := out.String()
		if !strings.HasPrefix(s, "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"") || !strings.HasSuffix(s, "\"}}\n</tool_call>") {
			t.Errorf("mode %d: output %q does not match the grammar", mode, s)
		}
		if mode != llama.RejectionFirst && rejections != 0 {
			t.Errorf("mode %d reported %d rejections", mode, rejections)
		}
		if mode == llama.RejectionFirst && (rejections == 0 || rejections > n+1) {
			t.Errorf("rejection-first: %d rejections in %d tokens", rejections, n+1)
		}
		t.Logf("mode %d: %d tokens, %d rejected: %q", mode, n+1, rejections, s)
		ch.Close()
		g.Close()
	}
}

// TestDRYClones: NewDRY processes the breakers once per model and settings
// and clones that sampler afterwards. A clone penalizes a repeated sequence
// as llama.cpp's DRY does, the same as the next clone, and stops at a
// sequence breaker.
func TestDRYClones(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	toks := tokenize(t, m, "the cat sat on the mat, the cat sat on the")
	next := tokenize(t, m, " mat")[0]
	penalized := func(breakers []string) []llama.TokenData {
		t.Helper()
		d, err := m.NewDRY(2, 1.75, 2, 64, breakers)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		for _, tok := range toks {
			if err := d.Accept(tok); err != nil {
				t.Fatal(err)
			}
		}
		cands := make([]llama.TokenData, m.VocabSize())
		for i := range cands {
			cands[i] = llama.TokenData{ID: llama.Token(i)}
		}
		if _, _, err := d.Apply(cands); err != nil {
			t.Fatal(err)
		}
		return cands
	}
	first, second := penalized([]string{"\n"}), penalized([]string{"\n"})
	if first[next].Logit >= 0 {
		t.Errorf("the token that extends the repeat has logit %v, want a penalty", first[next].Logit)
	}
	for i := range first {
		if first[i] != second[i] {
			t.Fatalf("two DRY samplers of one setting differ at token %d: %v, %v", i, first[i], second[i])
		}
	}
	// " on the" ends the repeat at a breaker: no penalty reaches " mat".
	if brk := penalized([]string{" the"}); brk[next].Logit != 0 {
		t.Errorf("with the breaker %q, %q still has logit %v", " the", " mat", brk[next].Logit)
	}
}
