package callformat

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsonStatus says how a scan of JSON text ended.
type jsonStatus int

const (
	jsonDone jsonStatus = iota // a complete value
	jsonMore                   // the text ends inside the value: more may come
	jsonBad                    // the text is not JSON
)

// maxJSONDepth bounds the nesting a scan follows, as encoding/json does.
const maxJSONDepth = 10000

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

func closer(open byte) byte {
	if open == '{' {
		return '}'
	}
	return ']'
}

// scanJSON finds the end of the JSON value that starts at s[i], after
// spaces. With jsonMore the end is len(s); with jsonBad it is where the
// text stops being JSON. A number that reaches the end of s is jsonMore, as
// more digits may follow.
func scanJSON(s string, i int) (int, jsonStatus) { return (*scanMemo)(nil).scanJSON(s, i) }

// scanJSON is scanJSON that goes on from where the last scan of the value
// that starts at start stopped.
func (m *scanMemo) scanJSON(s string, start int) (int, jsonStatus) {
	i, stack := m.valueAt(s, start)
	for {
		m.saveValue(start, i, stack)
		i = skipSpace(s, i)
		if i >= len(s) {
			return len(s), jsonMore
		}
		var st jsonStatus
		if c := s[i]; c == '{' || c == '[' {
			if len(stack) >= maxJSONDepth {
				return i, jsonBad
			}
			stack = append(stack, c)
			i = skipSpace(s, i+1)
			if i >= len(s) {
				return len(s), jsonMore
			}
			if s[i] != closer(c) {
				if c == '{' {
					if i, st = m.scanKey(s, i); st != jsonDone {
						return i, st
					}
				}
				continue
			}
			stack = stack[:len(stack)-1]
			i++
		} else if i, st = m.scanScalar(s, i); st != jsonDone {
			return i, st
		}
		if i, st = m.scanAfterValue(s, i, &stack); st != jsonDone || len(stack) == 0 {
			return i, st
		}
	}
}

// scanAfterValue closes the containers that end after a value, and stops
// where the next value starts (after a comma, and a key in an object). It
// returns jsonDone with an empty stack when the outermost value ended.
func (m *scanMemo) scanAfterValue(s string, i int, stack *[]byte) (int, jsonStatus) {
	for len(*stack) > 0 {
		i = skipSpace(s, i)
		if i >= len(s) {
			return len(s), jsonMore
		}
		top := (*stack)[len(*stack)-1]
		if s[i] == closer(top) {
			*stack = (*stack)[:len(*stack)-1]
			i++
			continue
		}
		if s[i] != ',' {
			return i, jsonBad
		}
		i++
		if top == '{' {
			return m.scanKey(s, skipSpace(s, i))
		}
		return i, jsonDone
	}
	return i, jsonDone
}

// scanKey reads an object key and its colon.
func (m *scanMemo) scanKey(s string, i int) (int, jsonStatus) {
	if i >= len(s) {
		return len(s), jsonMore
	}
	if s[i] != '"' {
		return i, jsonBad
	}
	i, st := m.scanString(s, i)
	if st != jsonDone {
		return i, st
	}
	i = skipSpace(s, i)
	if i >= len(s) {
		return len(s), jsonMore
	}
	if s[i] != ':' {
		return i, jsonBad
	}
	return i + 1, jsonDone
}

func scanScalar(s string, i int) (int, jsonStatus) { return (*scanMemo)(nil).scanScalar(s, i) }

func (m *scanMemo) scanScalar(s string, i int) (int, jsonStatus) {
	switch c := s[i]; {
	case c == '"':
		return m.scanString(s, i)
	case c == '-' || '0' <= c && c <= '9':
		return scanNumber(s, i)
	case c == 't':
		return scanLiteral(s, i, "true")
	case c == 'f':
		return scanLiteral(s, i, "false")
	case c == 'n':
		return scanLiteral(s, i, "null")
	}
	return i, jsonBad
}

func scanLiteral(s string, i int, lit string) (int, jsonStatus) {
	rest := s[i:]
	if len(rest) < len(lit) {
		if lit[:len(rest)] == rest {
			return len(s), jsonMore
		}
		return i, jsonBad
	}
	if rest[:len(lit)] != lit {
		return i, jsonBad
	}
	return i + len(lit), jsonDone
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digits(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func scanNumber(s string, i int) (int, jsonStatus) {
	j := i
	if s[j] == '-' {
		j++
	}
	if j >= len(s) {
		return len(s), jsonMore
	}
	switch {
	case s[j] == '0':
		j++
	case isDigit(s[j]):
		j = digits(s, j)
	default:
		return j, jsonBad
	}
	if j < len(s) && s[j] == '.' {
		if j++; j >= len(s) {
			return len(s), jsonMore
		}
		if !isDigit(s[j]) {
			return j, jsonBad
		}
		j = digits(s, j)
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		if j++; j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j >= len(s) {
			return len(s), jsonMore
		}
		if !isDigit(s[j]) {
			return j, jsonBad
		}
		j = digits(s, j)
	}
	if j >= len(s) {
		return len(s), jsonMore
	}
	return j, jsonDone
}

func isHex(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scanString reads the string that starts at s[i] == '"'.
func scanString(s string, i int) (int, jsonStatus) { return (*scanMemo)(nil).scanString(s, i) }

func (m *scanMemo) scanString(s string, i int) (int, jsonStatus) {
	j := i + 1
	if m != nil {
		if r, ok := m.strs[i]; ok && r <= len(s) {
			j = r
		}
	}
	from := j
	end, st := len(s), jsonMore
loop:
	for j < len(s) {
		switch c := s[j]; {
		case c == '"':
			end, st = j+1, jsonDone
			break loop
		case c == '\\':
			n, est := scanEscape(s, j)
			if est != jsonDone {
				end, st = n, est
				break loop
			}
			j = n
		case c < 0x20:
			end, st = j, jsonBad
			break loop
		default:
			j++
		}
	}
	if m != nil {
		m.strs[i] = j // where the loop stopped: the next scan goes on there
		m.work += j - from
	}
	return end, st
}

// scanEscape reads the escape that starts at s[j] == '\\'.
func scanEscape(s string, j int) (int, jsonStatus) {
	if j+1 >= len(s) {
		return len(s), jsonMore
	}
	switch s[j+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return j + 2, jsonDone
	case 'u':
		for k := j + 2; k < j+6; k++ {
			if k >= len(s) {
				return len(s), jsonMore
			}
			if !isHex(s[k]) {
				return k, jsonBad
			}
		}
		return j + 6, jsonDone
	}
	return j + 1, jsonBad
}

// decodeStringPrefix decodes the JSON string s, which starts with '"' and
// may be cut off or broken, as far as the text decides: an escape or a
// UTF-8 sequence cut by the end of s, and a \u high surrogate at its end,
// wait for more; a broken string decodes up to where it breaks. The result
// only grows as s grows.
func decodeStringPrefix(s string) string {
	end, st := scanString(s, 0)
	raw := s[:end]
	if st != jsonDone {
		raw = s[:safeStringCut(s[:end])] + `"`
	}
	var out string
	if json.Unmarshal([]byte(raw), &out) != nil {
		return ""
	}
	return out
}

// safeStringCut returns the length of the longest prefix of the cut-off
// string s whose decoding cannot change when more text follows.
func safeStringCut(s string) int { return safeStringCutFrom(s, 1) }

// safeStringCutFrom is safeStringCut going on from j, a point where the
// decoding of what comes before is settled.
func safeStringCutFrom(s string, j int) int {
	for j < len(s) {
		c := s[j]
		switch {
		case c == '\\':
			n, st := scanEscape(s, j)
			if st != jsonDone || s[j+1] == 'u' && isHighSurrogate(s[j+2:n]) && lowMayFollow(s[n:]) {
				return j
			}
			j = n
		case c >= utf8.RuneSelf:
			if !utf8.FullRuneInString(s[j:]) {
				return j
			}
			_, size := utf8.DecodeRuneInString(s[j:])
			j += size
		default:
			j++
		}
	}
	return j
}

func isHighSurrogate(hex4 string) bool {
	v, err := strconv.ParseUint(hex4, 16, 32)
	return err == nil && 0xD800 <= v && v <= 0xDBFF
}

// lowMayFollow reports whether rest could still grow into the \u escape
// of a low surrogate: it is shorter than one and a prefix of the form.
func lowMayFollow(rest string) bool {
	const form = `\u`
	if len(rest) >= 6 {
		return false
	}
	return len(rest) <= 2 && strings.HasPrefix(form, rest) || strings.HasPrefix(rest, form)
}

// jsonMember is one member of an object as far as the text goes.
type jsonMember struct {
	key string
	val int        // start of the value; -1 while the text ends before it
	end int        // end of the value (len of the text while st is jsonMore)
	st  jsonStatus // of the value
}

// scanObject walks the object at s[i] == '{' member by member (a member
// whose key is cut off is not listed; st is that of the whole object),
// going on from the last member the last scan
// of the object at start found complete.
func (m *scanMemo) scanObject(s string, start int) (ms []jsonMember, end int, st jsonStatus) {
	i := skipSpace(s, start+1)
	if i < len(s) && s[i] == '}' {
		return nil, i + 1, jsonDone
	}
	var e *objectResume
	if m != nil {
		if e = m.objects[start]; e == nil || e.i > len(s) {
			e = &objectResume{i: i}
			m.objects[start] = e
		}
		i, ms = skipSpace(s, e.i), e.ms[:len(e.ms):len(e.ms)]
	}
	for {
		if e != nil {
			e.i, e.ms = i, ms
		}
		if i >= len(s) {
			return ms, len(s), jsonMore
		}
		if s[i] != '"' {
			return ms, i, jsonBad
		}
		kend, kst := m.scanString(s, i)
		if kst != jsonDone {
			return ms, kend, kst
		}
		mb := jsonMember{key: decodeStringPrefix(s[i:kend]), val: -1, end: len(s), st: jsonMore}
		j := skipSpace(s, kend)
		if j < len(s) && s[j] != ':' {
			return ms, j, jsonBad
		}
		if j = skipSpace(s, j+1); j >= len(s) {
			return append(ms, mb), len(s), jsonMore
		}
		mb.val = j
		mb.end, mb.st = m.scanJSON(s, j)
		if ms = append(ms, mb); mb.st != jsonDone {
			return ms, mb.end, mb.st
		}
		if i = skipSpace(s, mb.end); i >= len(s) {
			return ms, len(s), jsonMore
		}
		switch s[i] {
		case '}':
			return ms, i + 1, jsonDone
		case ',':
			i = skipSpace(s, i+1)
		default:
			return ms, i, jsonBad
		}
	}
}

// firstMember returns the first member with one of keys, or nil.
func firstMember(ms []jsonMember, keys ...string) *jsonMember {
	for i := range ms {
		for _, k := range keys {
			if ms[i].key == k {
				return &ms[i]
			}
		}
	}
	return nil
}

// memberString returns m's value if it is a complete string. settled says
// whether more text can still change the answer.
func memberString(s string, m *jsonMember) (v string, ok, settled bool) {
	if m == nil || m.val < 0 {
		return "", false, false
	}
	if s[m.val] != '"' {
		return "", false, true
	}
	if m.st == jsonMore {
		return "", false, false
	}
	if m.st == jsonBad {
		return "", false, true
	}
	return decodeStringPrefix(s[m.val:m.end]), true, true
}

// memberArgs returns the argument text of m so far: the raw value, or the
// decoded text of a string value (arguments encoded twice).
func (mm *scanMemo) memberArgs(s string, m *jsonMember) (args string, encoded bool) {
	if m == nil || m.val < 0 {
		return "", false
	}
	if s[m.val] == '"' {
		return mm.decodeString(s, m.val, m.end), true
	}
	return s[m.val:m.end], false
}

// jsonError is encoding/json's complaint about s, for problem messages.
func jsonError(s string) string {
	var v json.RawMessage
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return err.Error()
	}
	return "unexpected text"
}

// compactJSON returns s as compact JSON, keys in the order written.
func compactJSON(s string) (string, error) {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return "", err
	}
	return b.String(), nil
}
