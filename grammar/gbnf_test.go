package grammar

import (
	"math"
	"math/rand/v2"
	"testing"
)

// opt, star, plus and rep are x?, x*, x+ and x{min,max}.
func opt(x Expr) Repeat               { return Repeat{X: x, Min: 0, Max: 1} }
func star(x Expr) Repeat              { return Repeat{X: x, Min: 0, Max: -1} }
func plus(x Expr) Repeat              { return Repeat{X: x, Min: 1, Max: -1} }
func rep(x Expr, min, max int) Repeat { return Repeat{X: x, Min: min, Max: max} }

// exprGen builds canonical grammars from bytes, so that the fuzzer can steer
// it; it reads zeros once the bytes run out, which ends every choice.
type exprGen struct{ data []byte }

func (g *exprGen) n(k int) int {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return int(b) % k
}

func genPick[T any](g *exprGen, xs ...T) T { return xs[g.n(len(xs))] }

var genRunes = []rune{'a', 'z', '"', '\\', '\n', '\r', '\t', 0, 0x7F, ' ', '#', '-', '^', ']', '[', '|',
	'(', '*', '{', 'é', '😀', 0x2028, 0xFFFD, 0x10FFFF}

var genBounds = [][2]int{{0, -1}, {1, -1}, {0, 1}, {0, 0}, {1, 1}, {3, 3}, {2, -1}, {2, 5}, {0, 2000}, {2000, -1}}

func (g *exprGen) grammar() *Grammar {
	gr := &Grammar{}
	for range 1 + g.n(4) {
		name := genPick(g, "root", "a", "b-2", "9", "-x")
		gr.Rules = append(gr.Rules, &Rule{Name: name, Expr: g.expr(3)})
	}
	return gr
}

func (g *exprGen) expr(depth int) Expr {
	kinds := 8
	if depth == 0 {
		kinds = 5
	}
	switch g.n(kinds) {
	case 0:
		s := make([]rune, g.n(4))
		for i := range s {
			s[i] = genPick(g, genRunes...)
		}
		return Lit(s)
	case 1:
		return g.class()
	case 2:
		return Any{}
	case 3:
		return Ref(genPick(g, "root", "a", "b-2", "9", "-x"))
	case 4:
		if g.n(2) == 0 {
			return Token{ID: genPick[int32](g, 0, 7, math.MaxInt32), Negated: g.n(2) == 1}
		}
		return Token{ID: -1, Text: genPick(g, "<|im_end|>", "<>", "<a b>", "<#\"(>", "<x\ny>"), Negated: g.n(2) == 1}
	case 5:
		b := genPick(g, genBounds...)
		return Repeat{X: g.expr(depth - 1), Min: b[0], Max: b[1]}
	case 6:
		s := make(Seq, genPick(g, 0, 2, 3))
		for i := range s {
			s[i] = g.expr(depth - 1)
		}
		return s
	}
	a := make(Alt, 2+g.n(3))
	for i := range a {
		if g.n(4) == 0 {
			a[i] = Seq{}
		} else {
			a[i] = g.expr(depth - 1)
		}
	}
	return a
}

func (g *exprGen) class() Class {
	c := Class{Negated: g.n(2) == 1}
	for range g.n(5) {
		lo := genPick(g, append(genRunes, 0xD800)...)
		hi := lo
		if g.n(2) == 1 {
			hi = genPick(g, genRunes...)
		}
		c.Ranges = append(c.Ranges, Range{lo, hi})
	}
	return c
}

// TestRoundTripRandom prints random canonical grammars and parses them back.
func TestRoundTripRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		data := make([]byte, 16+r.IntN(256))
		for j := range data {
			data[j] = byte(r.Uint32())
		}
		g := (&exprGen{data: data}).grammar()
		t.Run("", func(t *testing.T) {
			checkRoundTrip(t, g)
			_ = g.Validate("root")
		})
		if t.Failed() {
			t.Fatalf("grammar %d: %q", i, g)
		}
	}
}

// FuzzRoundTrip prints grammars built from the fuzzer's bytes and checks
// that they parse back equal and print the same again.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 5, 6, 2, 0, 3, 1, 1, 11, 4, 1, 2})
	f.Add([]byte{0, 7, 7, 3, 1, 0, 0, 6, 1, 1, 5, 2, 6, 0, 2, 1, 4, 1, 1, 2, 1})
	f.Add([]byte("the quick brown fox jumps over the lazy dog"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g := (&exprGen{data: data}).grammar()
		checkRoundTrip(t, g)
		_ = g.Validate("root")
	})
}
