package repair

import (
	"encoding/json"
	"errors"
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
	Comment       = "comment"
	UnquotedKey   = "unquoted key"
	UnquotedValue = "unquoted string value"
	MissingComma  = "missing comma"
	InnerQuote    = "unescaped quote in a string"
	DoubledQuotes = "doubled quotes"
	EscapedJSON   = "escaped JSON"
	Tuple         = "tuple as an array"
	TextAround    = "text around the object"
	// PythonLiteral is followed by the word: "Python literal True".
	PythonLiteral = "Python literal "
	// LiteralCase is followed by the word: "literal case TRUE".
	LiteralCase = "literal case "
)

// Names are the names of the repairs, for a report that counts each.
// PythonLiteral and LiteralCase name a repair with the word after them.
var Names = []string{TrailingComma, SingleQuotes, RawNewline, RawTab, RawControl,
	InvalidEscape, BracketClosed, Truncated, Comment, UnquotedKey, UnquotedValue,
	MissingComma, InnerQuote, DoubledQuotes, EscapedJSON, Tuple, TextAround,
	PythonLiteral, LiteralCase}

// pythonLiterals are the words the repair turns into JSON, outside strings.
var pythonLiterals = map[string]string{"True": "true", "False": "false", "None": "null"}

// validEscapes are the characters JSON allows after a backslash.
const validEscapes = `"\/bfnrtu`

// Repair reads text as one JSON object and returns it repaired, with the
// repairs it made, or an *Error that says why it will not. Text before
// the object's '{' (a sentence, a code fence) is dropped; text after it
// is dropped only when it is prose or a closing fence, and refused
// (ErrTextAfter) when it is another object or a word. The package doc
// lists what it repairs and what it refuses.
func Repair(text string) (string, []string, error) {
	start := strings.IndexByte(text, '{')
	if start < 0 {
		return "", nil, refuse(text, 0, ErrNoObject)
	}
	s := scan(text, start)
	switch {
	case s.truncated:
		return "", nil, refuse(text, len(text), ErrTruncated)
	case s.err != nil:
		return "", nil, s.err
	}
	if err := textAfter(text, s.end); err != nil {
		return "", nil, err
	}
	repairs := s.repairs
	if strings.TrimSpace(text[:start]) != "" || strings.TrimSpace(text[s.end:]) != "" {
		repairs = append([]string{TextAround}, repairs...)
	}
	return s.out.String(), repairs, nil
}

// textAfter accepts what follows the object when it is nothing, a
// closing code fence, or prose: white space, then words with spaces
// between them. Comments are skipped. Anything else is a second value, or the object's own
// text the repair could not place.
func textAfter(text string, end int) error {
	for {
		i := skipSpace(text, end)
		if !commentAt(text, i) {
			break
		}
		end = commentEnd(text, i)
	}
	rest := strings.TrimSpace(text[end:])
	switch {
	case rest == "", strings.HasPrefix(rest, "```"):
		return nil
	case end < len(text) && isSpace(text[end]) && startsWord(rest) && strings.ContainsAny(rest, " \t\n"):
		return nil
	}
	what := "a word"
	if strings.IndexByte("{[", rest[0]) >= 0 {
		what = "another object: write one call at a time, or each in its own tags"
	} else if !startsWord(rest) {
		what = "more JSON: write the object with every bracket closed where it belongs"
	}
	i := len(text) - len(strings.TrimLeft(text[end:], " \t\r\n"))
	return refuse(text, i, fmt.Errorf("%w: %s", ErrTextAfter, what))
}

func startsWord(s string) bool {
	c := s[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// scanner is the result of reading one object: the JSON, the repairs,
// whether the text ended inside it, where it ended, and why the repair
// was refused.
type scanner struct {
	out       strings.Builder
	repairs   []string
	truncated bool
	end       int // the index after the object's last byte
	// err is the refusal (an *Error), nil when out is the object. A
	// truncated object has no err: out is closed for a report, and its
	// call is refused as truncated.
	err error
}

// scan reads the object that starts at text[start] == '{'. Valid JSON is
// taken as written. Otherwise the repair reads it, and checks that the
// result keeps every key and value (checkLoss). A refused object ends
// one byte after its '{', so that a caller looks on after it.
func scan(text string, start int) *scanner {
	s := &scanner{end: len(text)}
	dec := json.NewDecoder(strings.NewReader(text[start:]))
	var raw json.RawMessage
	if dec.Decode(&raw) == nil {
		end := start + int(dec.InputOffset())
		if !(&parser{text: text}).continues(end) {
			s.out.WriteString(text[start:end])
			s.end = end
			return s
		}
	}
	body, from, at := text, start, func(i int) int { return i }
	if escaped(text, start) {
		var offsets []int
		body, offsets = unescape(text[start:])
		from, at = 0, func(i int) int { return start + offsets[i] }
	}
	st, err := parseObject(body, from)
	if escaped(text, start) {
		st.repair(EscapedJSON)
	}
	if errors.Is(err, ErrTruncated) {
		s.truncated = true
		s.repairs = addOnce(st.repairs, Truncated)
		closeTruncated(st, &s.out)
		return s
	}
	if err == nil {
		err = checkLoss(body[from:st.pos], string(st.out))
		if err != nil {
			err = refuse(body, from, err)
		}
	}
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.Offset = at(e.Offset)
			e.Near = near(text, e.Offset)
		}
		s.err, s.end = err, start+1
		s.out.WriteString(text[start:])
		return s
	}
	s.out.Write(st.out)
	s.repairs, s.end = st.repairs, at(st.pos)
	return s
}

// closeTruncated writes the object of a reading the text cut off, closed:
// the string closed, a trailing comma dropped, a dangling key given null,
// the brackets closed. The text parses and can be reported; its call is
// still refused, since its end was invented.
func closeTruncated(st *state, out *strings.Builder) {
	out.Write(st.out)
	if st.in != nil {
		out.WriteByte('"')
	}
	dropTrailingComma(out)
	if strings.HasSuffix(strings.TrimRight(out.String(), " \t\r\n"), ":") {
		out.WriteString("null")
	}
	for j := len(st.stack) - 1; j >= 0; j-- {
		c := st.stack[j].closer
		if c == ')' {
			c = ']'
		}
		out.WriteByte(c)
	}
}

// escaped reports whether the object at text[start] is JSON escaped as
// the text of a string: {\"key\": ...}.
func escaped(text string, start int) bool {
	i := skipSpace(text, start+1)
	return strings.HasPrefix(text[i:], `\"`)
}

// unescape reads s as the text of a JSON string, one level of escapes,
// and returns it with the offset in s of each of its bytes (and of its
// end).
func unescape(s string) (string, []int) {
	var b []byte
	var offsets []int
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			if r, ok := map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'n': '\n', 't': '\t', 'r': '\r'}[s[i+1]]; ok {
				b, offsets = append(b, r), append(offsets, i)
				i++
				continue
			}
		}
		b, offsets = append(b, c), append(offsets, i)
	}
	return string(b), append(offsets, len(s))
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
