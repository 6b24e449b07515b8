package grammar

import (
	"strconv"
	"strings"
)

// Grammar is a GBNF grammar: named rules in source order. Parse reads one
// from text, String prints it, Validate checks what llama.cpp checks beyond
// syntax, and Add builds one rule by rule.
//
// The zero value is an empty grammar. Rules must not hold nil. A Grammar is
// not safe for concurrent modification.
type Grammar struct {
	Rules []*Rule
}

// Rule is one GBNF rule, name ::= Expr.
type Rule struct {
	Name string // [a-zA-Z0-9-]+
	Expr Expr
}

// Expr is a GBNF expression: one of Alt, Seq, Lit, Class, Any, Ref, Token
// and Repeat, the only types that implement it. Its String method returns
// the expression as it would be written as a rule's body.
//
// Parse returns expressions in canonical form, the form in which printing
// and parsing again gives an equal expression: a Seq has zero or at least
// two items, an Alt at least two alternatives, a Class with no ranges has
// nil Ranges, a Token has ID -1 or Text "", and parentheses leave no trace
// other than the nesting. Seqs and Alts keep canonical items canonical.
type Expr interface {
	String() string
	isExpr()
}

// Alt matches any one of its alternatives: a | b | c. An empty Seq is the
// empty alternative, as in `a ::= "x" |`. An Alt with no alternatives
// prints as () and matches the empty string, like an empty Seq.
type Alt []Expr

// Seq matches its items one after another. The empty Seq matches the empty
// string and prints as () (or as nothing where it is an alternative).
type Seq []Expr

// Lit matches its text exactly; it holds the decoded text, so Lit("a\n")
// prints as "a\n". GBNF matches code points, so the text should be valid
// UTF-8; Validate rejects it otherwise.
type Lit string

// Class is a character class such as [a-z_] or, when Negated, [^"\\]. It
// matches one code point in (or, negated, not in) one of the ranges.
//
// In llama.cpp a class with no ranges, [] or [^], matches the empty string,
// not a character, and cannot be repeated without parentheses.
type Class struct {
	Negated bool
	Ranges  []Range
}

// Range is the inclusive code point range Lo-Hi of a Class; a single
// character has Lo == Hi.
type Range struct {
	Lo, Hi rune
}

// Any is ".", which matches any one code point.
type Any struct{}

// Ref is a reference to the rule with this name.
type Ref string

// Token matches one token of the model's vocabulary (or, when Negated, any
// one token but it): <[ID]> by id, or by its text, such as <|im_end|>.
// ID is -1 when Text is used. Text includes the angle brackets, is what
// llama.cpp tokenizes, and must tokenize to exactly one token; only llama.cpp
// with a loaded vocabulary can check that.
type Token struct {
	ID      int32
	Text    string
	Negated bool
}

// Repeat matches X between Min and Max times; Max is -1 for no upper bound.
// It prints as X*, X+, X?, X{m}, X{m,} or X{m,n}. llama.cpp accepts counts
// up to MaxRepetition.
type Repeat struct {
	X   Expr
	Min int
	Max int
}

// MaxRepetition is the largest count llama.cpp's parser accepts in {m,n}
// (MAX_REPETITION_THRESHOLD).
const MaxRepetition = 2000

func (Alt) isExpr()    {}
func (Seq) isExpr()    {}
func (Lit) isExpr()    {}
func (Class) isExpr()  {}
func (Any) isExpr()    {}
func (Ref) isExpr()    {}
func (Token) isExpr()  {}
func (Repeat) isExpr() {}

// Opt returns x? (zero or one x).
func Opt(x Expr) Repeat { return Repeat{X: x, Min: 0, Max: 1} }

// Star returns x* (any number of x).
func Star(x Expr) Repeat { return Repeat{X: x, Min: 0, Max: -1} }

// Plus returns x+ (one or more x).
func Plus(x Expr) Repeat { return Repeat{X: x, Min: 1, Max: -1} }

// Rep returns x{min,max}; max -1 means no upper bound.
func Rep(x Expr, min, max int) Repeat { return Repeat{X: x, Min: min, Max: max} }

// Seqs returns the sequence of xs: xs[0] itself when there is one, and the
// items of any Seq among xs spliced in, so that the result is canonical.
func Seqs(xs ...Expr) Expr {
	var out Seq
	for _, x := range xs {
		if s, ok := x.(Seq); ok {
			out = append(out, s...)
		} else {
			out = append(out, x)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	if out == nil {
		return Seq{}
	}
	return out
}

// Alts returns the alternation of xs: xs[0] itself when there is one, and
// the alternatives of any Alt among xs spliced in. With no xs it returns
// the empty Seq.
func Alts(xs ...Expr) Expr {
	var out Alt
	for _, x := range xs {
		if a, ok := x.(Alt); ok {
			out = append(out, a...)
		} else {
			out = append(out, x)
		}
	}
	switch len(out) {
	case 0:
		return Seq{}
	case 1:
		return out[0]
	}
	return out
}

// Rule returns the rule named name, or nil. If the name is defined more than
// once, it returns the last definition, the one llama.cpp uses.
func (g *Grammar) Rule(name string) *Rule {
	for i := len(g.Rules) - 1; i >= 0; i-- {
		if g.Rules[i].Name == name {
			return g.Rules[i]
		}
	}
	return nil
}

// Add adds the rule name ::= e and returns the name it got. The name is
// sanitized: each run of characters outside [a-zA-Z0-9-] becomes "-",
// leading and trailing dashes are dropped, and an empty name becomes
// "rule". If a rule with that name and the same printed body exists, Add
// adds nothing and returns its name; if one with another body exists, it
// numbers the name (name1, name2, ...), as Builder.Rule does. A nil e is
// the empty Seq.
func (g *Grammar) Add(name string, e Expr) string {
	if e == nil {
		e = Seq{}
	}
	name = sanitizeRuleName(name)
	body := e.String()
	for i := 0; ; i++ {
		n := name
		if i > 0 {
			n = name + strconv.Itoa(i)
		}
		old := g.Rule(n)
		if old == nil {
			g.Rules = append(g.Rules, &Rule{Name: n, Expr: e})
			return n
		}
		if old.Expr != nil && old.Expr.String() == body {
			return n
		}
	}
}

// sanitizeRuleName maps name into [a-zA-Z0-9-]+ as Add documents.
func sanitizeRuleName(name string) string {
	var b strings.Builder
	run := false
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case isWordChar(c):
			b.WriteByte(c)
			run = false
		case !run:
			b.WriteByte('-')
			run = true
		}
	}
	if s := strings.Trim(b.String(), "-"); s != "" {
		return s
	}
	return "rule"
}

// Size returns the length in bytes of the printed grammar, String(); a
// benchmark can report it with len(g.Rules).
func (g *Grammar) Size() int { return len(g.String()) }

// isWordChar reports whether c may appear in a rule name (is_word_char).
func isWordChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-'
}

// validName reports whether name is a well-formed rule name.
func validName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isWordChar(name[i]) {
			return false
		}
	}
	return true
}
