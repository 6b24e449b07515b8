package grammar

import (
	"fmt"
	"strconv"
	"strings"
)

// String returns the grammar in GBNF, one rule per line: "name ::= body\n"
// in the order of g.Rules, with single spaces between items. Literals are
// written with Quote and parentheses only where the structure needs them,
// so that Parse(g.String()) returns a grammar equal to a canonical g (see
// Expr) and printing is stable.
func (g *Grammar) String() string {
	var b strings.Builder
	for _, r := range g.Rules {
		b.WriteString(r.Name)
		b.WriteString(" ::= ")
		writeExpr(&b, r.Expr, inRule)
		b.WriteByte('\n')
	}
	return b.String()
}

// String returns the rule as a line of GBNF without the newline.
func (r *Rule) String() string { return r.Name + " ::= " + exprBody(r.Expr) }

// String returns the alternation as a rule's body: a | b | c.
func (e Alt) String() string { return exprBody(e) }

// String returns the sequence as a rule's body: a b c, or () when empty.
func (e Seq) String() string { return exprBody(e) }

// String returns the literal quoted with Quote.
func (e Lit) String() string { return Quote(string(e)) }

// String returns the class in brackets, escaped so that it reads back.
func (e Class) String() string { return exprBody(e) }

// String returns ".".
func (e Any) String() string { return "." }

// String returns the rule name.
func (e Ref) String() string { return string(e) }

// String returns <[id]> or the token's text, with "!" if negated.
func (e Token) String() string { return exprBody(e) }

// String returns the repetition, such as x*, (a b)+ or [0-9]{1,3}.
func (e Repeat) String() string { return exprBody(e) }

// exprBody prints e as a rule's body.
func exprBody(e Expr) string {
	var b strings.Builder
	writeExpr(&b, e, inRule)
	return b.String()
}

// printCtx is where an expression is printed; it decides parentheses.
type printCtx int

const (
	inRule   printCtx = iota // a rule's body: a newline would end the rule
	inGroup                  // inside parentheses
	inAlt                    // an alternative of an Alt
	inSeq                    // an item of a Seq
	inRepeat                 // the operand of a Repeat
)

func writeExpr(b *strings.Builder, e Expr, ctx printCtx) {
	switch e := e.(type) {
	case nil:
		b.WriteString("()")
	case Alt:
		writeAlt(b, e, ctx)
	case Seq:
		writeSeq(b, e, ctx)
	case Lit:
		if ctx == inRepeat && e == "" {
			b.WriteString(`("")`) // "" emits nothing; a repetition needs an item
			return
		}
		b.WriteString(Quote(string(e)))
	case Class:
		if ctx == inRepeat && len(e.Ranges) == 0 {
			b.WriteByte('(')
			writeClass(b, e)
			b.WriteByte(')')
			return
		}
		writeClass(b, e)
	case Any:
		b.WriteByte('.')
	case Ref:
		b.WriteString(string(e))
	case Token:
		writeToken(b, e)
	case Repeat:
		writeRepeat(b, e)
	default:
		panic(fmt.Sprintf("grammar: unknown Expr type %T", e))
	}
}

// writeAlt writes a | b | c, in parentheses unless it is a rule's body or
// already alone in parentheses. An empty alternative is written as nothing,
// except last in a rule's body, where the newline after the final "|" would
// continue the rule: there it is ().
func writeAlt(b *strings.Builder, a Alt, ctx printCtx) {
	switch len(a) {
	case 0:
		b.WriteString("()")
		return
	case 1:
		writeExpr(b, a[0], ctx)
		return
	}
	paren := ctx != inRule && ctx != inGroup
	if paren {
		b.WriteByte('(')
	}
	wrote := false
	for i, x := range a {
		if i > 0 {
			if wrote {
				b.WriteByte(' ')
			}
			b.WriteByte('|')
			wrote = true
		}
		if s, ok := x.(Seq); ok && len(s) == 0 && (ctx != inRule || i < len(a)-1) {
			continue
		}
		if wrote {
			b.WriteByte(' ')
		}
		writeExpr(b, x, inAlt)
		wrote = true
	}
	if paren {
		b.WriteByte(')')
	}
}

// writeSeq writes items separated by spaces, in parentheses inside another
// sequence or a repetition.
func writeSeq(b *strings.Builder, s Seq, ctx printCtx) {
	switch len(s) {
	case 0:
		b.WriteString("()")
		return
	case 1:
		writeExpr(b, s[0], ctx)
		return
	}
	paren := ctx == inSeq || ctx == inRepeat
	if paren {
		b.WriteByte('(')
	}
	for i, x := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		writeExpr(b, x, inSeq)
	}
	if paren {
		b.WriteByte(')')
	}
}

// writeRepeat writes X*, X+, X?, X{m}, X{m,} or X{m,n}. X is bare only if
// it is a single item that emits something in llama.cpp; anything else,
// including another repetition, goes in parentheses.
func writeRepeat(b *strings.Builder, r Repeat) {
	switch {
	case repeatable(r.X):
		writeExpr(b, r.X, inRepeat)
	case printsEmpty(r.X):
		b.WriteString("()")
	default:
		b.WriteByte('(')
		writeExpr(b, r.X, inGroup)
		b.WriteByte(')')
	}
	switch {
	case r.Min == 0 && r.Max < 0:
		b.WriteByte('*')
	case r.Min == 1 && r.Max < 0:
		b.WriteByte('+')
	case r.Min == 0 && r.Max == 1:
		b.WriteByte('?')
	case r.Max < 0:
		fmt.Fprintf(b, "{%d,}", r.Min)
	case r.Min == r.Max:
		fmt.Fprintf(b, "{%d}", r.Min)
	default:
		fmt.Fprintf(b, "{%d,%d}", r.Min, r.Max)
	}
}

// repeatable reports whether x can take a repetition suffix without
// parentheses.
func repeatable(x Expr) bool {
	switch x := x.(type) {
	case Lit:
		return x != ""
	case Class:
		return len(x.Ranges) > 0
	case Any, Ref, Token:
		return true
	}
	return false
}

// printsEmpty reports whether x prints as ().
func printsEmpty(x Expr) bool {
	switch x := x.(type) {
	case nil:
		return true
	case Seq:
		return len(x) == 0
	case Alt:
		return len(x) == 0
	}
	return false
}

func writeToken(b *strings.Builder, t Token) {
	if t.Negated {
		b.WriteByte('!')
	}
	if t.ID >= 0 {
		b.WriteString("<[")
		b.WriteString(strconv.Itoa(int(t.ID)))
		b.WriteString("]>")
		return
	}
	b.WriteString(t.Text)
}

// writeClass writes [...]. Besides ] and \, only a "-" that would read as a
// range and a "^" that would read as negation are escaped, as \x2D and
// \x5E, since llama.cpp knows no \- or \^.
func writeClass(b *strings.Builder, c Class) {
	b.WriteByte('[')
	if c.Negated {
		b.WriteByte('^')
	}
	for i, r := range c.Ranges {
		last := i == len(c.Ranges)-1
		switch {
		case r.Lo == '-' && i > 0 && c.Ranges[i-1].Lo == c.Ranges[i-1].Hi && !(last && r.Hi == '-'):
			// after a single character, "-" starts a range unless "]" follows
			b.WriteString(`\x2D`)
		case r.Lo == '^' && i == 0 && !c.Negated:
			b.WriteString(`\x5E`)
		default:
			writeClassChar(b, r.Lo)
		}
		if r.Hi != r.Lo {
			b.WriteByte('-')
			writeClassChar(b, r.Hi)
		}
	}
	b.WriteByte(']')
}

// writeClassChar writes r inside a class where "-" and "^" are plain.
func writeClassChar(b *strings.Builder, r rune) {
	if r == '-' || r == '^' {
		b.WriteRune(r)
		return
	}
	writeEscaped(b, r, "]")
}
