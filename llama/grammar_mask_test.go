package llama_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// TestGrammarMaskMatchesLlama walks grammars token by token, choosing at
// random among the allowed tokens, on three tokenizers' vocabularies, and
// at every step compares the grammar's mask of the whole vocabulary with
// the one llama.cpp's own code makes. The grammars cover literals, classes
// and ranges, negated classes, ".", multi-byte text (where a token can
// leave a UTF-8 sequence open), several parse stacks, tokens by id, an
// ending grammar (end of generation allowed) and a lazy grammar before and
// after its trigger.
func TestGrammarMaskMatchesLlama(t *testing.T) {
	for _, name := range []string{testmodels.BenchQwen2Q8, testmodels.TinyLlama3Q8, testmodels.TrainQwen25F32} {
		m := load(t, name)
		x := tokenize(t, m, "x")[0]
		grammars := []struct {
			name, gbnf string
			lazy       bool
		}{
			{"string", `root ::= "\"" char{0,60} "\""` + "\n" + `char ::= [^"\\\x7F\x00-\x1F] | [\\] (["\\bfnrt] | "u" [0-9a-fA-F]{4})`, false},
			{"literal", `root ::= "func Rank(marks int) string {\n\treturn \"A\"\n}\n" | "package calc\n"`, false},
			{"classes", `root ::= [a-zA-Z_] [a-zA-Z0-9_.]{0,20} (" " [0-9]{1,4}){0,6}`, false},
			{"any", `root ::= "<" .{1,12} ">"`, false},
			{"unicode", `root ::= ("日本語" | "é" [à-ÿ]{1,3} | "—" | [一-龥]{1,4} | [Ѐ-ӿ]{1,3}){1,8}`, false},
			{"negated", `root ::= [^a-m\n]{1,20} "\n"`, false},
			{"stacks", `root ::= "yes" | "yes, " [a-z]{1,9} | "no" | "n" [o-z]{2,5}`, false},
			{"tokens", fmt.Sprintf(`root ::= "a" <[%d]> !<[%d]>{1,3} [0-9]{1,3}`, x, x), false},
			{"lazy", `root ::= "<call>" [a-z]{1,8} "</call>"`, true},
		}
		for _, gr := range grammars {
			t.Run(name+"/"+gr.name, func(t *testing.T) {
				var g *llama.Sampler
				var err error
				if gr.lazy {
					g, err = m.NewLazyGrammar(gr.gbnf, "root", llama.LazyTriggers{Words: []string{"<call>"}})
				} else {
					g, err = m.NewGrammar(gr.gbnf, "root")
				}
				if err != nil {
					t.Fatal(err)
				}
				defer g.Close()
				walkGrammarMasks(t, m, g, gr.lazy)
			})
		}
	}
}

// walkGrammarMasks compares the masks along random walks of g; a lazy
// grammar is first fed text with its trigger word.
func walkGrammarMasks(t *testing.T, m *llama.Model, g *llama.Sampler, lazy bool) {
	rng := rand.New(rand.NewPCG(7, uint64(m.VocabSize())))
	fast := make([]llama.TokenData, m.VocabSize())
	ref := make([]llama.TokenData, m.VocabSize())
	open, steps := 0, 0
	for walk := 0; walk < 3 && steps < 36; walk++ {
		g.Reset()
		var text []byte
		if lazy {
			for _, tok := range tokenize(t, m, "Sure. <call>") {
				if err := g.Accept(tok); err != nil {
					t.Fatal(err)
				}
			}
		}
		for ; steps < 36; steps++ {
			for i := range fast {
				fast[i] = llama.TokenData{ID: llama.Token(i)}
			}
			copy(ref, fast)
			if _, _, err := g.Apply(fast); err != nil {
				t.Fatal(err)
			}
			if _, _, err := g.ApplyLlama(ref); err != nil {
				t.Fatal(err)
			}
			var allowed []llama.Token
			for i := range fast {
				f, r := math.IsInf(float64(fast[i].Logit), -1), math.IsInf(float64(ref[i].Logit), -1)
				if f != r {
					piece, _ := m.TokenPiece(llama.Token(i), true)
					t.Fatalf("walk %d step %d after %q: token %d %q masked %v, llama.cpp masks it %v", walk, steps, text, i, piece, f, r)
				}
				if !r {
					allowed = append(allowed, llama.Token(i))
				}
			}
			if len(allowed) == 0 {
				t.Fatalf("walk %d step %d after %q: no token allowed", walk, steps, text)
			}
			tok := allowed[rng.IntN(len(allowed))]
			if m.IsEOG(tok) {
				break
			}
			if err := g.Accept(tok); err != nil {
				t.Fatalf("walk %d step %d: accept %d: %v", walk, steps, tok, err)
			}
			piece, _ := m.TokenPiece(tok, true)
			text = append(text, piece...)
			if !utf8.Valid(text) {
				open++
			}
		}
	}
	t.Logf("%d steps, %d with a UTF-8 sequence open", steps, open)
}

// TestGrammarForced checks the text a grammar forces next: a call's
// punctuation up to a choice, the letters two choices share, a limit in
// bytes, multi-byte text, none where the grammar may end, none before a
// lazy grammar's trigger, and the grammar's state kept.
func TestGrammarForced(t *testing.T) {
	m := load(t, testmodels.TrainQwen25F32)
	const call = `root ::= "<tool_call>\n{\"name\": \"" ("read_file" | "read_dir" | "edit_file") "\", \"arguments\": {\"path\": \"" [a-z]+ "\"}}"`
	forced := func(g *llama.Sampler, max int) string {
		t.Helper()
		s, err := g.Forced(max)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	feed := func(g *llama.Sampler, text string) {
		t.Helper()
		for _, tok := range tokenize(t, m, text) {
			if err := g.Accept(tok); err != nil {
				t.Fatalf("accept %q: %v", text, err)
			}
		}
	}
	g, err := m.NewGrammar(call, "root")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for _, c := range []struct{ fed, want string }{
		{"", "<tool_call>\n{\"name\": \""},
		{"<tool_call>\n{\"name\": \"re", "ad_"},
		{"ad_f", "ile\", \"arguments\": {\"path\": \""},
		{"ile\", \"arguments\": {\"path\": \"ab", ""},
		{"c\"}}", ""},
	} {
		feed(g, c.fed)
		if got := forced(g, 256); got != c.want {
			t.Errorf("after %q: forced %q, want %q", c.fed, got, c.want)
		}
	}
	g.Reset()
	if got := forced(g, 5); got != "<tool" {
		t.Errorf("forced up to 5 bytes: %q", got)
	}
	if got := forced(g, 5); got != "<tool" {
		t.Errorf("forced again: %q; the state changed", got)
	}
	feed(g, "<tool_call>\n{\"name\": \"edit_file\"") // the state walked past the forced text must accept it

	for _, c := range []struct{ gbnf, want string }{
		{`root ::= "é—x" [a-z]`, "é—x"},
		{`root ::= "ab" | "abc"`, "ab"},
		{`root ::= "ab" "c"?`, "ab"},
		{`root ::= [a] "b"`, "ab"},
		{`root ::= [ab] "c"`, ""},
	} {
		g, err := m.NewGrammar(c.gbnf, "root")
		if err != nil {
			t.Fatal(err)
		}
		if got := forced(g, 256); got != c.want {
			t.Errorf("%s: forced %q, want %q", c.gbnf, got, c.want)
		}
		g.Close()
	}

	lazy, err := m.NewLazyGrammar(`root ::= "<call>" [a-z]+ "</call>"`, "root", llama.LazyTriggers{Words: []string{"<call>"}})
	if err != nil {
		t.Fatal(err)
	}
	defer lazy.Close()
	if got := forced(lazy, 256); got != "" {
		t.Errorf("a lazy grammar before its trigger forces %q", got)
	}
	greedy := llama.NewGreedy()
	defer greedy.Close()
	if got := forced(greedy, 256); got != "" {
		t.Errorf("a greedy sampler forces %q", got)
	}
}
