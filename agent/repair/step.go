package repair

import (
	"fmt"
	"strings"
)

// step reads one token outside strings. It returns the readings of a
// fork, or an error when the reading fails.
func (p *parser) step(st *state) ([]func(*state) bool, error) {
	if !p.space(st) || st.pos >= len(p.text) {
		return nil, refuse(p.text, st.pos, ErrTruncated)
	}
	c := p.text[st.pos]
	f := st.top()
	if c == '}' || c == ']' || c == ')' {
		return p.closer(st, c)
	}
	switch f.want {
	case wantKey:
		if c == '"' || c == '\'' {
			return p.open(st, true), nil
		}
		return nil, p.key(st, c)
	case wantColon:
		if c != ':' {
			return nil, refuse(p.text, st.pos, fmt.Errorf("%w: a key needs a colon after it", ErrSyntax))
		}
		st.out = append(st.out, ':')
		st.pos++
		f.want = wantValue
		return nil, nil
	case wantValue:
		if c == ',' {
			return nil, refuse(p.text, st.pos, fmt.Errorf("%w: a value is missing before the comma", ErrSyntax))
		}
		return p.value(st, c)
	}
	// wantNext
	if c == ',' {
		f.commaAt = len(st.out)
		st.out = append(st.out, ',')
		st.pos++
		f.want = wantValue
		if f.closer == '}' {
			f.want = wantKey
		}
		return nil, nil
	}
	if c == ':' {
		return nil, refuse(p.text, st.pos, fmt.Errorf("%w: a colon after a value", ErrSyntax))
	}
	// A value or key with no comma before it: the comma goes right
	// after the last value. A word or number needs white space after
	// it: 12345" is no value followed by a string.
	if prev := st.out[len(st.out)-1]; f.valueEnd == len(st.out) && prev != '"' && prev != '}' && prev != ']' {
		return nil, refuse(p.text, st.pos, fmt.Errorf("%w: expected a comma after the value", ErrSyntax))
	}
	st.out = append(st.out[:f.valueEnd], append([]byte{','}, st.out[f.valueEnd:]...)...)
	f.commaAt = -1
	st.repair(MissingComma)
	f.want = wantValue
	if f.closer == '}' {
		f.want = wantKey
	}
	return nil, nil
}

// endValue marks the end of a value in the innermost frame.
func (st *state) endValue() {
	f := st.top()
	f.want, f.valueEnd, f.commaAt = wantNext, len(st.out), -1
	f.values++
}

// key reads an object's key that is a word, and quotes it.
func (p *parser) key(st *state, c byte) error {
	j := st.pos
	for j < len(p.text) && isKeyByte(p.text[j]) {
		j++
	}
	if j == st.pos || strings.ContainsAny(p.text[st.pos:j], "“”‘’") {
		return refuse(p.text, st.pos, fmt.Errorf("%w: expected a key in double quotes", ErrSyntax))
	}
	st.out = append(st.out, '"')
	st.out = append(st.out, p.text[st.pos:j]...)
	st.out = append(st.out, '"')
	st.pos = j
	st.repair(UnquotedKey)
	st.top().want = wantColon
	return nil
}

func isKeyByte(c byte) bool { return isIdent(c) || c == '$' || c == '-' || c >= 0x80 }

// open starts a string at a quote. A doubled quote before text (""a"")
// has two readings: an empty string, or quotes written twice.
func (p *parser) open(st *state, key bool) []func(*state) bool {
	q := p.text[st.pos]
	if q == '\'' {
		st.repair(SingleQuotes)
	}
	single := func(c *state) bool {
		c.in = &str{closer: string(q), key: key}
		c.out = append(c.out, '"')
		c.pos++
		return true
	}
	rest := p.text[st.pos:]
	if len(rest) > 2 && rest[1] == q && !isSpace(rest[2]) && strings.IndexByte(`,:}])"'`, rest[2]) < 0 &&
		strings.Contains(rest[2:], string([]byte{q, q})) {
		doubled := func(c *state) bool {
			c.in = &str{closer: string([]byte{q, q}), key: key}
			c.out = append(c.out, '"')
			c.pos += 2
			c.repair(DoubledQuotes)
			return true
		}
		return []func(*state) bool{single, doubled}
	}
	single(st)
	return nil
}

// value reads a value, or opens the object, array or string it starts.
func (p *parser) value(st *state, c byte) ([]func(*state) bool, error) {
	switch c {
	case '{', '[', '(':
		closer := map[byte]byte{'{': '}', '[': ']', '(': ')'}[c]
		want := wantValue
		if c == '{' {
			want = wantKey
		}
		if c == '(' {
			st.repair(Tuple)
			c = '['
		}
		st.out = append(st.out, c)
		st.pos++
		st.stack = append(st.stack, frame{closer: closer, want: want, commaAt: -1})
		return nil, nil
	case '"', '\'':
		return p.open(st, false), nil
	}
	if n := numberLen(p.text[st.pos:]); n > 0 && (st.pos+n == len(p.text) || !isWordByte(p.text[st.pos+n])) {
		st.out = append(st.out, p.text[st.pos:st.pos+n]...)
		st.pos += n
		st.endValue()
		return nil, nil
	}
	return nil, p.word(st)
}

// word reads an unquoted value up to a comma, a closing bracket, the end
// of the line, a comment or a quote after a space: a literal in another
// spelling, or a string. A word that ends in a quote is a string that
// lost its opening quote.
func (p *parser) word(st *state) error {
	j := st.pos
	for j < len(p.text) && strings.IndexByte(",}])\r\n", p.text[j]) < 0 && !commentAt(p.text, j) &&
		!(p.text[j] == '"' && isSpace(p.text[j-1])) {
		j++
	}
	if j == len(p.text) {
		return refuse(p.text, st.pos, ErrTruncated)
	}
	w := strings.TrimRight(p.text[st.pos:j], " \t")
	if lit, name, ok := literal(w); ok {
		st.out = append(st.out, lit...)
		if name != "" {
			st.repair(name)
		}
		st.pos += len(w)
		st.endValue()
		return nil
	}
	n := len(w)
	w = strings.TrimSuffix(w, `"`)
	if err := plainWord(w); err != nil {
		return refuse(p.text, st.pos, err)
	}
	st.out = append(st.out, quote(w)...)
	st.repair(UnquotedValue)
	st.pos += n
	st.endValue()
	return nil
}

// plainWord accepts an unquoted value that can only be a string: it has
// a letter or digit, no quote, bracket or colon (but a URL's ://), and is
// no number written outside JSON's grammar and no JavaScript value
// without a JSON one.
func plainWord(w string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w: the unquoted value %q %s: put strings in double quotes", ErrSyntax, w, why)
	}
	switch {
	case alnum(w) == "":
		return bad("has no letter or digit")
	case strings.ContainsAny(strings.ReplaceAll(w, "://", ""), "\"'{[:`") || strings.ContainsAny(w, "“”‘’"):
		return bad("holds a quote, a bracket or a colon")
	case w == "undefined" || w == "NaN" || w == "Infinity":
		return bad("has no JSON value")
	case strings.IndexByte("0123456789-+.", w[0]) >= 0 && strings.Trim(w, "0123456789.") != "":
		return bad("is no JSON number")
	case w[0] == '.' || w[len(w)-1] == '.':
		return bad("is no JSON number")
	}
	return nil
}

// literal returns the JSON of a word that is true, false or null in any
// case, or Python's None, and the repair it needs ("" for none).
func literal(w string) (string, string, bool) {
	switch w {
	case "true", "false", "null":
		return w, "", true
	case "True", "False", "None":
		return pythonLiterals[w], PythonLiteral + w, true
	}
	for _, l := range []string{"true", "false", "null"} {
		if strings.EqualFold(w, l) {
			return l, LiteralCase + w, true
		}
	}
	return "", "", false
}

// quote returns w as a JSON string; w holds no quotes.
func quote(w string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func isWordByte(c byte) bool { return isIdent(c) || c == '.' || c == '$' || c >= 0x80 }

// numberLen returns the length of the JSON number at the start of s, or 0.
func numberLen(s string) int {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - j
	}
	if i >= len(s) || (s[i] == '0' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9') {
		return 0 // a leading zero: read as a word
	}
	if digits() == 0 {
		return 0
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return 0
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0
		}
	}
	return i
}

// closer reads a closing bracket. One that does not match the innermost
// open bracket has up to two readings: a typo for the matching one, or
// a missing one (the open bracket closes, and this one closes an outer
// bracket); one that matches no open bracket may also be a stray one,
// dropped.
func (p *parser) closer(st *state, c byte) ([]func(*state) bool, error) {
	f := st.top()
	if f.want == wantColon || (f.want == wantValue && f.closer == '}') {
		return nil, refuse(p.text, st.pos, fmt.Errorf("%w: a key without a value", ErrSyntax))
	}
	if c == f.closer {
		if c == ')' && f.values == 1 {
			return nil, refuse(p.text, st.pos, fmt.Errorf("%w: one value in parentheses is no tuple: write an array in brackets", ErrSyntax))
		}
		st.closeTop(true)
		return nil, nil
	}
	matched := false
	for _, g := range st.stack {
		matched = matched || g.closer == c
	}
	typo := func(s *state) bool { s.repair(BracketClosed); s.closeTop(true); return true }
	missing := func(s *state) bool {
		if !matched {
			return false
		}
		s.repair(BracketClosed)
		s.closeTop(false)
		return true
	}
	stray := func(s *state) bool {
		if matched {
			return false
		}
		s.repair(BracketClosed)
		s.pos++
		return true
	}
	return []func(*state) bool{missing, typo, stray}, nil
}

// closeTop closes the innermost bracket, dropping a trailing comma, and
// consumes the closing bracket when it was in the text.
func (st *state) closeTop(consume bool) {
	f := st.top()
	if f.commaAt >= 0 {
		st.out = st.out[:f.commaAt]
		st.repair(TrailingComma)
	}
	c := f.closer
	if c == ')' {
		c = ']'
	}
	st.out = append(st.out, c)
	if consume {
		st.pos++
	}
	st.stack = st.stack[:len(st.stack)-1]
	if len(st.stack) > 0 {
		st.endValue()
	}
}
