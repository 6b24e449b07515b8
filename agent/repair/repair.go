package repair

import (
	"fmt"
	"strings"
)

// The repairs the JSON repair names, in the words a report prints.
const (
	TrailingComma = "trailing comma"
	SingleQuotes  = "single quotes"
	RawNewline    = "raw newline in a string"
	RawTab        = "raw tab in a string"
	RawControl    = "raw control character in a string"
	InvalidEscape = "invalid escape in a string"
	BracketClosed = "mismatched bracket"
	Truncated     = "truncated"
	// PythonLiteral is followed by the word: "Python literal True".
	PythonLiteral = "Python literal "
)

// pythonLiterals are the words the scan turns into JSON, outside strings.
var pythonLiterals = map[string]string{"True": "true", "False": "false", "None": "null"}

// validEscapes are the characters JSON allows after a backslash.
const validEscapes = `"\/bfnrtu`

// scanner is one pass over an object: the state of the scan (inside a
// string and which quote opened it, the open brackets, the repairs made)
// and where the object ended.
type scanner struct {
	text      string
	out       strings.Builder
	open      []byte
	quote     byte // 0 outside a string, else ' or "
	repairs   []string
	truncated bool
	end       int // the index after the object's last byte
}

// scan repairs the object that starts at text[start] == '{'.
func scan(text string, start int) *scanner {
	s := &scanner{text: text, end: len(text)}
	for i := start; i < len(text); i++ {
		var done bool
		if s.quote != 0 {
			i = s.inString(i)
		} else if i, done = s.outside(i); done {
			s.end = i + 1
			return s
		}
	}
	s.closeTruncated()
	return s
}

func (s *scanner) repair(name string) { s.repairs = addOnce(s.repairs, name) }

// inString copies text[i] inside a string and returns the last index used.
func (s *scanner) inString(i int) int {
	c := s.text[i]
	switch {
	case c == '\\' && i+1 < len(s.text):
		next := s.text[i+1]
		switch {
		case next == '\'' && s.quote == '\'':
			s.out.WriteByte('\'') // \' is no JSON escape; ' needs none
		case strings.IndexByte(validEscapes, next) < 0:
			s.out.WriteString(`\\`)
			s.out.WriteByte(next)
			s.repair(InvalidEscape)
		default:
			s.out.WriteByte(c)
			s.out.WriteByte(next)
		}
		return i + 1
	case c == '\\': // the text ends after a backslash
		return i
	case c == s.quote:
		s.out.WriteByte('"')
		s.quote = 0
	case c == '"': // a double quote inside a single-quoted string
		s.out.WriteString(`\"`)
	case c == '\n':
		s.out.WriteString(`\n`)
		s.repair(RawNewline)
	case c == '\t':
		s.out.WriteString(`\t`)
		s.repair(RawTab)
	case c < 0x20:
		fmt.Fprintf(&s.out, `\u%04x`, c)
		s.repair(RawControl)
	default:
		s.out.WriteByte(c)
	}
	return i
}

// outside copies text[i] outside strings and returns the last index used,
// and true when it closed the object.
func (s *scanner) outside(i int) (int, bool) {
	c := s.text[i]
	switch c {
	case '"', '\'':
		if c == '\'' {
			s.repair(SingleQuotes)
		}
		s.quote = c
		s.out.WriteByte('"')
	case '{', '[':
		s.open = append(s.open, c)
		s.out.WriteByte(c)
	case '}', ']':
		return i, s.close(c)
	default:
		if word := pythonWord(s.text, i); word != "" {
			s.out.WriteString(pythonLiterals[word])
			s.repair(PythonLiteral + word)
			return i + len(word) - 1, false
		}
		s.out.WriteByte(c)
	}
	return i, false
}

// close handles a closing bracket: it drops a trailing comma before it,
// closes what it closes, and reports whether the object is complete. A
// bracket that does not match the innermost open one closes the open ones
// down to its match; one without a match is dropped.
func (s *scanner) close(c byte) bool {
	if dropTrailingComma(&s.out) {
		s.repair(TrailingComma)
	}
	want := byte('{')
	if c == ']' {
		want = '['
	}
	k := strings.LastIndexByte(string(s.open), want)
	if k < 0 {
		s.repair(BracketClosed)
		return false
	}
	for j := len(s.open) - 1; j > k; j-- {
		s.out.WriteByte(closer(s.open[j]))
		s.repair(BracketClosed)
	}
	s.open = s.open[:k]
	s.out.WriteByte(c)
	return len(s.open) == 0
}

// closeTruncated ends an object the text cut off: it closes the string,
// drops a trailing comma, gives a dangling key null, and closes the
// brackets, so that the text parses and can be reported; its call is
// still refused, since its end was invented.
func (s *scanner) closeTruncated() {
	if s.quote == 0 && len(s.open) == 0 {
		return
	}
	s.truncated = true
	s.repair(Truncated)
	if s.quote != 0 {
		s.out.WriteByte('"')
	}
	dropTrailingComma(&s.out)
	if strings.HasSuffix(strings.TrimRight(s.out.String(), " \t\r\n"), ":") {
		s.out.WriteString("null")
	}
	for j := len(s.open) - 1; j >= 0; j-- {
		s.out.WriteByte(closer(s.open[j]))
	}
}

func closer(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// pythonWord returns True, False or None when one of them starts at
// text[i] as a whole word, else "": replacing them inside longer words
// would break an unquoted identifier such as TrueColor.
func pythonWord(text string, i int) string {
	if i > 0 && isIdent(text[i-1]) {
		return ""
	}
	for _, w := range []string{"True", "False", "None"} {
		if strings.HasPrefix(text[i:], w) && (i+len(w) == len(text) || !isIdent(text[i+len(w)])) {
			return w
		}
	}
	return ""
}

func isIdent(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// dropTrailingComma removes a comma followed only by white space at the
// end of out, with that white space, and reports whether it did.
func dropTrailingComma(out *strings.Builder) bool {
	s := out.String()
	t := strings.TrimRight(s, " \t\r\n")
	if !strings.HasSuffix(t, ",") {
		return false
	}
	out.Reset()
	out.WriteString(t[:len(t)-1])
	return true
}

func addOnce(list []string, name string) []string {
	for _, n := range list {
		if n == name {
			return list
		}
	}
	return append(list, name)
}
