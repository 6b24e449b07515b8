package lint

import "github.com/loopagent/loop/grammar"

// Elements is the size of g as llama.cpp's grammar parser builds it: the
// elements of its rules (a character of a literal, a character range, a
// rule reference, an alternative's marker, each rule's end), with every
// repetition expanded as llama_grammar_parser does. S{m,n} becomes m
// copies of S and n-m nested rules of S and a reference each, so a
// string of maxLength 2000 alone is some 8,000 elements; a group in
// parentheses is a rule of its own, repeated by reference.
func Elements(g *grammar.Grammar) int {
	n := 0
	for _, r := range g.Rules {
		n += elements(r.Expr) + 1
	}
	return n
}

func elements(e grammar.Expr) int {
	switch e := e.(type) {
	case grammar.Alt:
		n := len(e) - 1
		for _, x := range e {
			n += elements(x)
		}
		return n
	case grammar.Seq:
		n := 0
		for _, x := range e {
			n += elements(x)
		}
		return n
	case grammar.Lit:
		return len([]rune(string(e)))
	case grammar.Class:
		n := 0
		for _, r := range e.Ranges {
			n++
			if r.Hi != r.Lo {
				n++
			}
		}
		return max(n, 1)
	case grammar.Repeat:
		return repeatElements(e)
	}
	return 1 // Any, Ref, Token
}

// repeatElements is S{min,max}: min copies of S inline, then one rule per
// optional copy (S, a reference to the next, an alternative marker and
// an end; one rule of that shape for an unbounded tail) and a reference
// to the first. A group is a rule of its own, and S is a reference to it.
func repeatElements(e grammar.Repeat) int {
	s, group := elements(e.X), 0
	switch e.X.(type) {
	case grammar.Alt, grammar.Seq:
		group, s = s+1, 1
	}
	opt := 1
	if e.Max >= 0 {
		opt = e.Max - e.Min
	}
	n := group + e.Min*s + opt*(s+3)
	if opt > 0 {
		n++
	}
	return n
}
