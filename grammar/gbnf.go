package grammar

// Grammar is a GBNF grammar: named rules in source order. Parse reads one
// from text, String prints it, and Validate checks what llama.cpp checks
// beyond syntax.
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
// other than the nesting.
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
