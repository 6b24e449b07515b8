package repair

import (
	"fmt"
	"strings"
)

// stringStep reads inside a string: a run of plain bytes, an escape, a
// control character, or a quote. A quote in a value string that is
// followed by something a string cannot be followed by (a word) has two
// readings: it closes the string, or it is a quote inside it that the
// model did not escape. A key's quote always closes it.
func (p *parser) stringStep(st *state) ([]func(*state) bool, error) {
	i := st.pos
	if i >= len(p.text) {
		return nil, refuse(p.text, i, ErrTruncated)
	}
	in := st.in
	if strings.HasPrefix(p.text[i:], in.closer) {
		closeIt := func(s *state) bool {
			s.out = append(s.out, '"')
			s.pos += len(in.closer)
			s.in = nil
			if in.key {
				s.top().want = wantColon
			} else {
				s.endValue()
			}
			return true
		}
		if len(in.closer) == 2 || in.key || p.closes(i+1, in.key, st.top().closer) || !p.innerQuote(i) {
			closeIt(st)
			return nil, nil
		}
		inner := func(s *state) bool {
			s.out = appendQuote(s.out, p.text[i])
			s.pos++
			s.repair(InnerQuote)
			return true
		}
		readings := []func(*state) bool{closeIt, inner}
		if missing, ok := p.missingQuote(st, i); ok {
			readings = append(readings, missing)
		}
		return readings, nil
	}
	c := p.text[i]
	switch {
	case c == '\\':
		return nil, p.escape(st)
	case c == '"' || c == '\'':
		st.out = appendQuote(st.out, c)
		st.pos++
	case c == '\n':
		st.out = append(st.out, `\n`...)
		st.repair(RawNewline)
		st.pos++
	case c == '\t':
		st.out = append(st.out, `\t`...)
		st.repair(RawTab)
		st.pos++
	case c < 0x20:
		st.out = fmt.Appendf(st.out, `\u%04x`, c)
		st.repair(RawControl)
		st.pos++
	default:
		j := i + 1
		for j < len(p.text) && p.text[j] >= 0x20 && p.text[j] != '\\' && p.text[j] != '"' && p.text[j] != '\'' {
			j++
		}
		st.out = append(st.out, p.text[i:j]...)
		st.pos = j
	}
	return nil, nil
}

// innerQuote reports whether the quote at text[i] may be a quote inside
// the string: not when another string follows it ("a" "b" is two
// strings), nor a plus and a string ('a' + 'b', two strings joined as in
// Python or JavaScript, which the repair does not join).
func (p *parser) innerQuote(i int) bool {
	j := skipSpace(p.text, i+1)
	if j < len(p.text) && p.text[j] == '+' {
		k := skipSpace(p.text, j+1)
		return k < len(p.text) && p.text[k] != '"' && p.text[k] != '\''
	}
	return j < len(p.text) && p.text[j] != p.text[i]
}

// missingQuote is a third reading of a quote in a value string that ends
// in a comma: the string ended before the comma, its closing quote
// missing, and the quote opens the next key ("a": "b, "c": "d").
func (p *parser) missingQuote(st *state, i int) (func(*state) bool, bool) {
	if st.in.key || st.top().closer != '}' {
		return nil, false
	}
	body := strings.TrimRight(string(st.out), " \t")
	if !strings.HasSuffix(body, ",") || strings.HasSuffix(body, `",`) {
		return nil, false
	}
	k := strings.IndexByte(p.text[i+1:], p.text[i])
	if k < 0 || !p.closes(i+1+k+1, true, '}') {
		return nil, false
	}
	return func(s *state) bool {
		comma := strings.LastIndexByte(string(s.out), ',')
		tail := string(s.out[comma+1:])
		s.out = append(s.out[:comma], '"')
		s.in = nil
		s.endValue()
		f := s.top()
		f.commaAt = len(s.out)
		s.out = append(append(s.out, ','), tail...)
		f.want = wantKey
		s.repair(InnerQuote)
		return true
	}, true
}

// appendQuote appends a quote that is part of a string's text.
func appendQuote(out []byte, q byte) []byte {
	if q == '"' {
		return append(out, `\"`...)
	}
	return append(out, q)
}

// closes reports whether what follows text[i] can follow a string that
// ends at i: the end of the text, a comment, a colon after a key, a
// comma or a closing bracket after a value (a parenthesis only in a
// tuple: in text, "f("x")" holds one).
func (p *parser) closes(i int, key bool, closer byte) bool {
	i = skipSpace(p.text, i)
	if i >= len(p.text) || commentAt(p.text, i) {
		return true
	}
	if key {
		return p.text[i] == ':'
	}
	return strings.IndexByte(",}]", p.text[i]) >= 0 || p.text[i] == ')' && closer == ')'
}

// escape reads a backslash in a string. \' and a backslash before a
// character beyond ASCII drop the backslash, which JSON does not allow
// there; another escape JSON does not know keeps its backslash, escaped,
// so that C:\dir stays C:\dir.
func (p *parser) escape(st *state) error {
	i := st.pos
	if i+1 >= len(p.text) {
		return refuse(p.text, i, ErrTruncated)
	}
	next := p.text[i+1]
	switch {
	case next == '\'':
		st.out = append(st.out, '\'')
		if st.in.closer != "'" {
			st.repair(InvalidEscape)
		}
		st.pos += 2
	case next >= 0x80:
		st.repair(InvalidEscape)
		st.pos++
	case next == 'u' && isHex4(p.text[i+2:]):
		st.out = append(st.out, p.text[i:i+6]...)
		st.pos += 6
	case next != 'u' && strings.IndexByte(validEscapes, next) >= 0:
		st.out = append(st.out, p.text[i:i+2]...)
		st.pos += 2
	default:
		st.out = append(st.out, `\\`...)
		st.repair(InvalidEscape)
		st.pos++
	}
	return nil
}

func isHex4(s string) bool {
	if len(s) < 4 {
		return false
	}
	for i := 0; i < 4; i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return true
}
