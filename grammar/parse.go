package grammar

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Parse reads a GBNF grammar with the syntax of llama.cpp's
// llama_grammar_parser (src/llama-grammar.cpp):
//
//   - rules "name ::= alternatives", names of [a-zA-Z0-9-]+, one rule per
//     line; "#" starts a comment that runs to the end of the line;
//   - alternatives a | b, where an alternative may be empty;
//   - items: string literals "...", character classes [a-z] and [^...],
//     "." for any character, rule names, groups ( ... ), tokens <[id]> and
//     <text> and their negations !<[id]> and !<text>;
//   - repetitions *, +, ?, {m}, {m,} and {m,n} of the item before them, with
//     counts up to MaxRepetition;
//   - escapes \n \r \t \\ \" \[ \] \xHH \uHHHH \UHHHHHHHH in literals and
//     classes.
//
// Inside parentheses newlines may appear anywhere; at the top level a newline
// ends the rule, except right after "::=" or "|".
//
// Parse checks syntax only; Validate checks that rules are defined and not
// left-recursive. A token by text is accepted as written, since only
// llama.cpp with a vocabulary can tell whether it is one token.
//
// Parse is stricter than llama.cpp in a few cases where llama.cpp accepts
// text it then misreads or cannot use: a NUL byte (llama.cpp stops reading
// there), a code point above U+10FFFF, a surrogate in a string literal, a
// token id above 2^31-1 (llama.cpp truncates it), and {m,n} with m > n
// (llama.cpp tries to build about 2^64 rules).
//
// Errors are *Error with Op "parse", Subject the position ("line 3, column
// 7"; columns count bytes from 1) and an Err that wraps ErrSyntax.
func Parse(src string) (g *Grammar, err error) {
	p := &parser{src: src}
	defer func() {
		if r := recover(); r != nil {
			perr, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			g, err = nil, perr
		}
	}()
	if i := strings.IndexByte(src, 0); i >= 0 {
		p.pos = i
		p.fail("unexpected NUL byte")
	}
	return p.grammar(), nil
}

// parser follows llama_grammar_parser function by function. It reports an
// error by panicking with an *Error, which Parse recovers.
type parser struct {
	src string
	pos int
}

// fail stops parsing with an error at p.pos.
func (p *parser) fail(format string, args ...any) {
	p.failAt(p.pos, format, args...)
}

func (p *parser) failAt(pos int, format string, args ...any) {
	line := 1 + strings.Count(p.src[:pos], "\n")
	col := pos - strings.LastIndexByte(p.src[:pos], '\n')
	panic(&Error{
		Op:      "parse",
		Subject: fmt.Sprintf("line %d, column %d", line, col),
		Err:     fmt.Errorf("%w: %s", ErrSyntax, fmt.Sprintf(format, args...)),
	})
}

// at returns the byte i bytes ahead, or 0 at the end (NUL is rejected
// beforehand, so 0 means the end, as in C).
func (p *parser) at(i int) byte {
	if p.pos+i < len(p.src) {
		return p.src[p.pos+i]
	}
	return 0
}

func (p *parser) grammar() *Grammar {
	g := &Grammar{}
	p.space(true)
	for p.pos < len(p.src) {
		g.Rules = append(g.Rules, p.rule())
	}
	return g
}

// rule reads "name ::= alternatives" and the newline after it (parse_rule).
func (p *parser) rule() *Rule {
	name := p.name()
	p.space(false)
	if !strings.HasPrefix(p.src[p.pos:], "::=") {
		p.fail("expecting ::=")
	}
	p.pos += 3
	p.space(true)
	r := &Rule{Name: name, Expr: p.alternates(false)}
	switch p.at(0) {
	case '\r':
		p.pos++
		if p.at(0) == '\n' {
			p.pos++
		}
	case '\n':
		p.pos++
	case 0:
	default:
		p.fail("expecting newline or end")
	}
	p.space(true)
	return r
}

// space skips blanks and comments, and newlines if newlineOK (parse_space).
func (p *parser) space(newlineOK bool) {
	for {
		switch c := p.at(0); {
		case c == ' ' || c == '\t':
			p.pos++
		case c == '#':
			for c := p.at(0); c != 0 && c != '\r' && c != '\n'; c = p.at(0) {
				p.pos++
			}
		case newlineOK && (c == '\r' || c == '\n'):
			p.pos++
		default:
			return
		}
	}
}

// name reads a rule name (parse_name).
func (p *parser) name() string {
	start := p.pos
	for isWordChar(p.at(0)) {
		p.pos++
	}
	if p.pos == start {
		p.fail("expecting name")
	}
	return p.src[start:p.pos]
}

// alternates reads sequences separated by "|" (parse_alternates).
func (p *parser) alternates(nested bool) Expr {
	alts := Alt{p.sequence(nested)}
	for p.at(0) == '|' {
		p.pos++
		p.space(true)
		alts = append(alts, p.sequence(nested))
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return alts
}

// sequence reads items and their repetitions up to "|", ")", a top-level
// newline or anything else it cannot start an item with (parse_sequence).
func (p *parser) sequence(nested bool) Expr {
	items := Seq{}
	// canRepeat says whether the last item emitted anything in llama.cpp,
	// which a repetition needs: "" and [] emit nothing, nor does x{0}.
	canRepeat := false
	for {
		c := p.at(0)
		switch {
		case c == '"':
			lit := p.literal()
			items, canRepeat = append(items, lit), lit != ""
		case c == '[':
			class := p.class()
			items, canRepeat = append(items, class), len(class.Ranges) > 0
		case c == '<' || c == '!':
			items, canRepeat = append(items, p.token()), true
		case isWordChar(c):
			items, canRepeat = append(items, Ref(p.name())), true
		case c == '(':
			items, canRepeat = append(items, p.group()), true
		case c == '.':
			p.pos++
			items, canRepeat = append(items, Any{}), true
		case c == '*' || c == '+' || c == '?' || c == '{':
			op := p.pos
			min, max := p.repetition(nested)
			if !canRepeat {
				p.failAt(op, "expecting preceding item to */+/?/{")
			}
			items[len(items)-1] = Repeat{X: items[len(items)-1], Min: min, Max: max}
			canRepeat = max != 0
			continue // repetition skips the space after itself
		default:
			if len(items) == 1 {
				return items[0]
			}
			return items
		}
		p.space(nested)
	}
}

// group reads ( alternatives ), in which newlines are allowed.
func (p *parser) group() Expr {
	p.pos++
	p.space(true)
	e := p.alternates(true)
	if p.at(0) != ')' {
		p.fail("expecting ')'")
	}
	p.pos++
	return e
}

// repetition reads *, +, ?, {m}, {m,} or {m,n} and the space after it, and
// returns the bounds, max -1 for none.
func (p *parser) repetition(nested bool) (min, max int) {
	op := p.pos
	c := p.at(0)
	p.pos++
	p.space(nested)
	switch c {
	case '*':
		return 0, -1
	case '+':
		return 1, -1
	case '?':
		return 0, 1
	}
	if !isDigit(p.at(0)) {
		p.fail("expecting an int")
	}
	min, max = p.int(), -1
	p.space(nested)
	switch p.at(0) {
	case '}':
		max = min
	case ',':
		p.pos++
		p.space(nested)
		if isDigit(p.at(0)) {
			max = p.int()
			p.space(nested)
		}
		if p.at(0) != '}' {
			p.fail("expecting '}'")
		}
	default:
		p.fail("expecting ','")
	}
	p.pos++
	p.space(nested)
	if min > MaxRepetition || max > MaxRepetition {
		p.failAt(op, "number of repetitions exceeds %d", MaxRepetition)
	}
	if max >= 0 && min > max {
		p.failAt(op, "minimum number of repetitions %d exceeds maximum %d", min, max)
	}
	return min, max
}

// int reads decimal digits, saturating far above any limit (parse_int).
func (p *parser) int() int {
	if !isDigit(p.at(0)) {
		p.fail("expecting integer")
	}
	n := 0
	for ; isDigit(p.at(0)); p.pos++ {
		n = min(n*10+int(p.at(0)-'0'), math.MaxInt32+1)
	}
	return n
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// literal reads a string literal "...".
func (p *parser) literal() Lit {
	p.pos++
	var b strings.Builder
	for p.at(0) != '"' {
		if p.pos >= len(p.src) {
			p.fail("unexpected end of input")
		}
		start := p.pos
		r := p.char()
		if !utf8.ValidRune(r) {
			p.failAt(start, "code point U+%04X cannot be in a string literal", r)
		}
		b.WriteRune(r)
	}
	p.pos++
	return Lit(b.String())
}

// class reads a character class [...] or [^...].
func (p *parser) class() Class {
	p.pos++
	var c Class
	if p.at(0) == '^' {
		p.pos++
		c.Negated = true
	}
	for p.at(0) != ']' {
		if p.pos >= len(p.src) {
			p.fail("unexpected end of input")
		}
		lo := p.char()
		hi := lo
		if p.at(0) == '-' && p.at(1) != ']' {
			if p.at(1) == 0 {
				p.pos++
				p.fail("unexpected end of input")
			}
			p.pos++
			hi = p.char()
		}
		c.Ranges = append(c.Ranges, Range{Lo: lo, Hi: hi})
	}
	p.pos++
	return c
}

// char reads one character of a literal or class, escaped or not
// (parse_char).
func (p *parser) char() rune {
	start := p.pos
	var r rune
	switch c := p.at(0); {
	case c == '\\':
		r = p.escape()
	case c != 0:
		r = p.decodeChar()
	default:
		p.fail("unexpected end of input")
	}
	if r > utf8.MaxRune {
		p.failAt(start, "code point U+%X out of range", r)
	}
	return r
}

func (p *parser) escape() rune {
	c := p.at(1)
	switch c {
	case 'x':
		return p.hex(2)
	case 'u':
		return p.hex(4)
	case 'U':
		return p.hex(8)
	case 't', 'r', 'n', '\\', '"', '[', ']':
		p.pos += 2
		switch c {
		case 't':
			return '\t'
		case 'r':
			return '\r'
		case 'n':
			return '\n'
		}
		return rune(c)
	}
	p.fail("unknown escape")
	return 0
}

// hex reads the size hex digits of \x, \u or \U (parse_hex).
func (p *parser) hex(size int) rune {
	p.pos += 2
	start := p.pos
	var v uint32
	for ; p.pos < start+size; p.pos++ {
		c := p.at(0)
		switch {
		case '0' <= c && c <= '9':
			v = v<<4 | uint32(c-'0')
		case 'a' <= c && c <= 'f':
			v = v<<4 | uint32(c-'a'+10)
		case 'A' <= c && c <= 'F':
			v = v<<4 | uint32(c-'A'+10)
		default:
			p.failAt(start, "expecting %d hex chars", size)
		}
	}
	if v > utf8.MaxRune {
		p.failAt(start-2, "code point U+%X out of range", v)
	}
	return rune(v)
}

// decodeChar decodes one character as llama.cpp's decode_utf8 does: the same as
// UTF-8 for valid text, and leniently for invalid bytes, which it reads as
// whatever code point their low bits make.
func (p *parser) decodeChar() rune {
	lengths := [16]int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4}
	first := p.src[p.pos]
	n := lengths[first>>4]
	r := rune(first) & (1<<(8-n) - 1)
	end := p.pos + n
	for p.pos++; p.pos < end && p.pos < len(p.src); p.pos++ {
		r = r<<6 + rune(p.src[p.pos]&0x3F)
	}
	return r
}

// token reads <[id]>, <text> or either negated with "!" (parse_token).
func (p *parser) token() Token {
	t := Token{ID: -1}
	if p.at(0) == '!' {
		t.Negated = true
		p.pos++
	}
	if p.at(0) != '<' {
		p.fail("expecting '<'")
	}
	start := p.pos
	p.pos++
	if p.at(0) == '[' {
		p.pos++
		id := p.int()
		if id > math.MaxInt32 {
			p.failAt(start, "token id out of range")
		}
		if p.at(0) != ']' {
			p.fail("expecting ']'")
		}
		if p.at(1) != '>' {
			p.pos++
			p.fail("expecting '>'")
		}
		p.pos += 2
		t.ID = int32(id)
		return t
	}
	end := strings.IndexByte(p.src[p.pos:], '>')
	if end < 0 {
		p.pos = len(p.src)
		p.fail("expecting '>'")
	}
	p.pos += end + 1
	t.Text = p.src[start:p.pos]
	return t
}
