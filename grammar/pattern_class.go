package grammar

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsonEscapes are the characters a JSON string must escape, with their
// escaped forms, for classes that include them.
var jsonEscapes = map[rune]string{'"': `\"`, '\\': `\\`, '\n': `\n`, '\r': `\r`, '\t': `\t`, '\b': `\b`, '\f': `\f`}

// shorthand returns the ranges of \d \w \s, or nil.
func shorthand(c byte) []Range {
	switch c {
	case 'd':
		return []Range{{'0', '9'}}
	case 'w':
		return []Range{{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}
	case 's':
		return []Range{{' ', ' '}, {'\t', '\t'}, {'\n', '\n'}, {'\r', '\r'}, {'\f', '\f'}, {'\v', '\v'}}
	}
	return nil
}

// escape parses a backslash escape outside a class.
func (p *reParser) escape() (item, error) {
	if p.pos+1 >= len(p.src) {
		return item{}, p.fail("trailing backslash")
	}
	c := p.src[p.pos+1]
	switch {
	case strings.IndexByte("dws", c) >= 0:
		p.pos += 2
		return item{expr: p.classExpr(shorthand(c), false)}, nil
	case strings.IndexByte("DWS", c) >= 0:
		p.pos += 2
		return item{expr: p.classExpr(shorthand(c+'a'-'A'), true)}, nil
	case strings.IndexByte("bBpPkAZzG123456789", c) >= 0:
		return item{}, p.fail(`\%c is not supported`, c)
	}
	r, err := p.escapedRune()
	if err != nil {
		return item{}, err
	}
	return literalItem(r), nil
}

// escapedRune decodes \n \t \xHH \uHHHH or an escaped character at p.pos.
func (p *reParser) escapedRune() (rune, error) {
	c := p.src[p.pos+1]
	simple := map[byte]rune{'n': '\n', 'r': '\r', 't': '\t', 'f': '\f', 'v': '\v', '0': 0}
	if r, ok := simple[c]; ok {
		p.pos += 2
		return r, nil
	}
	for prefix, n := range map[byte]int{'x': 2, 'u': 4} {
		if c == prefix {
			if p.pos+2+n > len(p.src) {
				return 0, p.fail(`short \%c escape`, c)
			}
			v, err := strconv.ParseUint(p.src[p.pos+2:p.pos+2+n], 16, 32)
			if err != nil {
				return 0, p.fail(`bad \%c escape`, c)
			}
			p.pos += 2 + n
			return rune(v), nil
		}
	}
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		return 0, p.fail(`\%c is not supported`, c)
	}
	r, size := utf8.DecodeRuneInString(p.src[p.pos+1:])
	p.pos += 1 + size
	return r, nil
}

// class parses [...] into a GBNF expression.
func (p *reParser) class() (item, error) {
	p.pos++ // [
	negated := false
	if p.peek() == '^' {
		negated = true
		p.pos++
	}
	var ranges []Range
	first := true
	for {
		if p.pos >= len(p.src) {
			return item{}, p.fail("unclosed [")
		}
		if p.src[p.pos] == ']' && !first {
			p.pos++
			break
		}
		first = false
		if p.src[p.pos] == '\\' && p.pos+1 < len(p.src) && shorthand(p.src[p.pos+1]) != nil {
			ranges = append(ranges, shorthand(p.src[p.pos+1])...)
			p.pos += 2
			continue
		}
		lo, err := p.classRune()
		if err != nil {
			return item{}, err
		}
		hi := lo
		if p.peek() == '-' && p.pos+1 < len(p.src) && p.src[p.pos+1] != ']' {
			p.pos++
			if hi, err = p.classRune(); err != nil {
				return item{}, err
			}
			if hi < lo {
				return item{}, p.fail("range out of order")
			}
		}
		ranges = append(ranges, Range{lo, hi})
	}
	return item{expr: p.classExpr(ranges, negated)}, nil
}

func (p *reParser) classRune() (rune, error) {
	if p.src[p.pos] == '\\' {
		if p.pos+1 >= len(p.src) {
			return 0, p.fail("trailing backslash")
		}
		c := p.src[p.pos+1]
		if strings.IndexByte("DWSbBpP", c) >= 0 {
			return 0, p.fail(`\%c inside a class is not supported`, c)
		}
		return p.escapedRune()
	}
	r, size := utf8.DecodeRuneInString(p.src[p.pos:])
	p.pos += size
	return r, nil
}

// classExpr writes a class of characters as JSON string content: raw for
// the characters JSON allows raw, escaped forms for the others.
func (p *reParser) classExpr(ranges []Range, negated bool) string {
	var raw strings.Builder
	var escaped []string
	if negated {
		raw.WriteString(`[^"\\\x7F\x00-\x1F`)
		for _, r := range ranges {
			writeRange(&raw, r)
		}
		raw.WriteString("]")
		alts := []string{raw.String()}
		for _, special := range []rune{'"', '\\'} {
			if !inRanges(ranges, special) {
				alts = append(alts, Quote(jsonEscapes[special]))
			}
		}
		return "(" + strings.Join(alts, " | ") + ")"
	}
	for _, r := range ranges {
		for special, enc := range jsonEscapes {
			if special >= r.Lo && special <= r.Hi {
				escaped = append(escaped, Quote(enc))
			}
		}
		for _, part := range splitJSONRaw(r) {
			writeRange(&raw, part)
		}
	}
	var alts []string
	if raw.Len() > 0 {
		alts = append(alts, "["+raw.String()+"]")
	}
	slices.Sort(escaped)
	alts = append(alts, slices.Compact(escaped)...)
	if len(alts) == 0 {
		return `""`
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return "(" + strings.Join(alts, " | ") + ")"
}

// splitJSONRaw removes the characters JSON cannot hold raw from a range.
func splitJSONRaw(r Range) []Range {
	out := []Range{r}
	for _, cut := range []Range{{0, 0x1F}, {'"', '"'}, {'\\', '\\'}, {0x7F, 0x7F}} {
		var next []Range
		for _, x := range out {
			if cut.Hi < x.Lo || cut.Lo > x.Hi {
				next = append(next, x)
				continue
			}
			if x.Lo < cut.Lo {
				next = append(next, Range{x.Lo, cut.Lo - 1})
			}
			if x.Hi > cut.Hi {
				next = append(next, Range{cut.Hi + 1, x.Hi})
			}
		}
		out = next
	}
	return out
}

func writeRange(b *strings.Builder, r Range) {
	b.WriteString(ClassChar(r.Lo))
	if r.Hi != r.Lo {
		b.WriteString("-")
		b.WriteString(ClassChar(r.Hi))
	}
}

func inRanges(rs []Range, c rune) bool {
	for _, r := range rs {
		if c >= r.Lo && c <= r.Hi {
			return true
		}
	}
	return false
}
