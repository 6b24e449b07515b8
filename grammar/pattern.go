package grammar

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The regex subset of "pattern":
//
//	literals, escaped metacharacters (\. \* \\ ...), \n \r \t \f \v \xHH \uHHHH
//	.  [abc]  [a-z]  [^...]  \d \D \w \W \s \S (also inside classes)
//	(...)  (?:...)  (?<name>...)  (?P<name>...)  alternation |
//	* + ? {n} {n,} {n,m}, and their lazy forms (*? ...), which match the same strings
//	^ at the start and $ at the end; without them the pattern may match
//	anywhere in the string, as JSON Schema says
//
// Refused, each with an error naming it: lookaround (?= (?! (?<= (?<!,
// backreferences \1 \k<...>, word boundaries \b \B, Unicode classes \p \P,
// inline flags (?i), possessive quantifiers (*+), and ^ or $ inside.
// Characters that JSON must escape (" \ and control characters) are written
// in their escaped form; a negated class or . never produces them.
const patternSubset = "supported: literals, ., [classes], \\d \\w \\s, groups, |, * + ? {m,n}, ^ and $ at the ends"

// pattern returns the rule of a string matching the regular expression.
func (c *converter) pattern(re, name, ptr string) (string, error) {
	p := &reParser{c: c, src: re, name: name, ptr: ptr}
	anchoredStart := strings.HasPrefix(re, "^")
	if anchoredStart {
		p.pos = 1
	}
	expr, _, err := p.alternation()
	if err != nil {
		return "", err
	}
	anchoredEnd := false
	if p.pos < len(p.src) && p.src[p.pos] == '$' && p.pos == len(p.src)-1 {
		anchoredEnd = true
		p.pos++
	}
	if p.pos < len(p.src) {
		return "", p.fail("unexpected %q", p.src[p.pos])
	}
	body := "(" + expr + ")"
	if !anchoredStart {
		body = c.b.Primitive("char") + "* " + body
	}
	if !anchoredEnd {
		body += " " + c.b.Primitive("char") + "*"
	}
	return c.b.Rule(name, `"\"" `+body+` "\"" space`), nil
}

type reParser struct {
	c         *converter
	src       string
	pos       int
	name, ptr string
	subs      int
}

func (p *reParser) fail(format string, args ...any) error {
	return p.c.fail(p.ptr, "pattern %q at offset %d: %s (%s)", p.src, p.pos, fmt.Sprintf(format, args...), patternSubset)
}

func (p *reParser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

// alternation returns the GBNF of a|b|..., and whether it can match the
// empty string.
func (p *reParser) alternation() (string, bool, error) {
	var alts []string
	nullable := false
	for {
		s, null, err := p.sequence()
		if err != nil {
			return "", false, err
		}
		alts = append(alts, s)
		nullable = nullable || null
		if p.peek() != '|' {
			return strings.Join(alts, " | "), nullable, nil
		}
		p.pos++
	}
}

// item is one atom of a sequence; lit holds the JSON-encoded text of a
// literal character, so that neighbours can merge into one GBNF literal.
type item struct {
	expr     string
	lit      string
	isLit    bool
	nullable bool // can match the empty string
}

func (p *reParser) sequence() (string, bool, error) {
	var items []item
	for p.pos < len(p.src) {
		ch := p.peek()
		if ch == '|' || ch == ')' || (ch == '$' && p.pos == len(p.src)-1) {
			break
		}
		if strings.IndexByte("*+?{", ch) >= 0 {
			if len(items) == 0 {
				return "", false, p.fail("nothing to repeat")
			}
			q, err := p.quantifier(items[len(items)-1])
			if err != nil {
				return "", false, err
			}
			items[len(items)-1] = q
			continue
		}
		it, err := p.atom()
		if err != nil {
			return "", false, err
		}
		items = append(items, it)
	}
	nullable := true
	for _, it := range items {
		nullable = nullable && it.nullable
	}
	return joinItems(items), nullable, nil
}

func joinItems(items []item) string {
	var parts []string
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, Quote(lit.String()))
			lit.Reset()
		}
	}
	for _, it := range items {
		if it.isLit {
			lit.WriteString(it.lit)
			continue
		}
		flush()
		parts = append(parts, it.expr)
	}
	flush()
	if len(parts) == 0 {
		return `""`
	}
	return strings.Join(parts, " ")
}

// quantifier applies the repetition at p.pos to last. An unbounded
// repetition of something that can match the empty string is refused: it
// is meaningless, and llama.cpp's grammar engine recurses forever on it.
func (p *reParser) quantifier(last item) (item, error) {
	x := last.expr
	if last.isLit {
		x = Quote(last.lit)
	}
	lo, hi := 0, -1
	switch ch := p.src[p.pos]; ch {
	case '*':
		p.pos++
	case '+':
		lo = 1
		p.pos++
	case '?':
		hi = 1
		p.pos++
	case '{':
		end := strings.IndexByte(p.src[p.pos:], '}')
		if end < 0 {
			return item{}, p.fail("unclosed {")
		}
		spec := p.src[p.pos+1 : p.pos+end]
		var err error
		if lo, hi, err = parseCount(spec); err != nil {
			return item{}, p.fail("bad count {%s}", spec)
		}
		p.pos += end + 1
	}
	switch p.peek() {
	case '?':
		p.pos++ // lazy: the same strings match
	case '+':
		return item{}, p.fail("possessive quantifiers are not supported")
	}
	if hi < 0 && last.nullable {
		return item{}, p.fail("an unbounded repetition of something that can be empty is not supported")
	}
	limit := p.c.b.opts.maxRep()
	if hi > limit {
		p.c.note(p.ptr, "pattern count %d is above the grammar limit of %d: relaxed, validate the arguments", hi, limit)
		hi = -1
	}
	if lo > limit {
		p.c.note(p.ptr, "pattern count %d is above the grammar limit of %d: relaxed, validate the arguments", lo, limit)
		lo = limit
	}
	if strings.ContainsAny(x, " |") && !(strings.HasPrefix(x, "(") && strings.HasSuffix(x, ")")) {
		x = "(" + x + ")"
	}
	return item{expr: repetition(x, lo, hi, ""), nullable: lo == 0 || last.nullable}, nil
}

func parseCount(spec string) (int, int, error) {
	a, b, comma := strings.Cut(spec, ",")
	lo, err := strconv.Atoi(a)
	if err != nil || lo < 0 {
		return 0, 0, fmt.Errorf("bad count")
	}
	if !comma {
		return lo, lo, nil
	}
	if b == "" {
		return lo, -1, nil
	}
	hi, err := strconv.Atoi(b)
	if err != nil || hi < lo {
		return 0, 0, fmt.Errorf("bad count")
	}
	return lo, hi, nil
}

func (p *reParser) atom() (item, error) {
	switch ch := p.peek(); ch {
	case '(':
		return p.group()
	case '[':
		return p.class()
	case '.':
		p.pos++
		return item{expr: p.dot()}, nil
	case '\\':
		return p.escape()
	case '^', '$':
		return item{}, p.fail("%q is supported only at the ends", ch)
	}
	r, size := utf8.DecodeRuneInString(p.src[p.pos:])
	p.pos += size
	return literalItem(r), nil
}

// literalItem is a literal character in its JSON-encoded form.
func literalItem(r rune) item {
	enc := jsonString(string(r))
	return item{lit: enc[1 : len(enc)-1], isLit: true}
}

func (p *reParser) group() (item, error) {
	p.pos++ // (
	if strings.HasPrefix(p.src[p.pos:], "?") {
		rest := p.src[p.pos:]
		switch {
		case strings.HasPrefix(rest, "?:"):
			p.pos += 2
		case strings.HasPrefix(rest, "?P<"), strings.HasPrefix(rest, "?<") && !strings.HasPrefix(rest, "?<=") && !strings.HasPrefix(rest, "?<!"):
			end := strings.IndexByte(rest, '>')
			if end < 0 {
				return item{}, p.fail("unclosed group name")
			}
			p.pos += end + 1
		case strings.HasPrefix(rest, "?="), strings.HasPrefix(rest, "?!"), strings.HasPrefix(rest, "?<="), strings.HasPrefix(rest, "?<!"):
			return item{}, p.fail("lookaround is not supported")
		default:
			return item{}, p.fail("inline flags and other (? groups are not supported")
		}
	}
	inner, nullable, err := p.alternation()
	if err != nil {
		return item{}, err
	}
	if p.peek() != ')' {
		return item{}, p.fail("unbalanced parenthesis")
	}
	p.pos++
	return item{expr: "(" + inner + ")", nullable: nullable}, nil
}

func (p *reParser) dot() string {
	return p.c.b.Rule("pattern-dot", `[^"\\\x7F\x00-\x1F] | "\\" ["\\/bfrt]`)
}
