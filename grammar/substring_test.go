package grammar

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// walks reports whether s spells a path from the automaton's start.
func walks(sa []saState, s string) bool {
	st := 0
	for _, r := range s {
		next, ok := sa[st].next[r]
		if !ok {
			return false
		}
		st = next
	}
	return true
}

// TestSuffixAutomaton: on random texts over a small alphabet (many
// repeats), every substring has a path and every other string does not,
// and the automaton stays within 2n states.
func TestSuffixAutomaton(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		n := 1 + rng.IntN(40)
		var b strings.Builder
		for range n {
			b.WriteByte("abc"[rng.IntN(3)])
		}
		text := b.String()
		sa := buildSuffixAutomaton(text)
		if len(sa) > 2*n {
			t.Fatalf("%q: %d states, more than 2n = %d", text, len(sa), 2*n)
		}
		for range 200 {
			var q strings.Builder
			for range 1 + rng.IntN(8) {
				q.WriteByte("abcd"[rng.IntN(4)])
			}
			if got, want := walks(sa, q.String()), strings.Contains(text, q.String()); got != want {
				t.Fatalf("text %q, %q: path %v, substring %v", text, q.String(), got, want)
			}
		}
	}
}

func TestSubstringSchema(t *testing.T) {
	b := NewBuilder(Options{})
	if _, err := b.Schema("s", "t", []byte(`{"type": "string", "x-substring-of": ""}`)); err == nil {
		t.Error("empty text: no error")
	}
	if _, err := b.Schema("s", "t", []byte(`{"type": "string", "x-substring-of": 3}`)); err == nil {
		t.Error("a number: no error")
	}
	r, err := b.Schema("s", "t", []byte(`{"type": "string", "x-substring-of": "a\"\n"}`))
	if err != nil {
		t.Fatal(err)
	}
	g := b.GBNF(b.Rule("root", r))
	for _, want := range []string{`"\\\"" `, `"\\n" `} {
		if !strings.Contains(g, want) {
			t.Errorf("grammar lacks %s:\n%s", want, g)
		}
	}
}
