package repair

import (
	"fmt"
	"strings"
)

// The JSON repair is a parser with an explicit stack, so that a point
// where the text has two readings (a quote that closes a string or sits
// inside it, a bracket that is a typo or a missing one) can run each
// reading to the end of the object on a copy of the state. A reading
// that does not close the object, or closes it with more JSON after it,
// fails; the repair takes the one reading that succeeds and refuses when
// two do (ErrAmbiguous).

// What a frame expects next.
const (
	wantKey   = iota // after '{' or a comma in an object
	wantColon        // after a key
	wantValue        // after a colon, '[', '(' or a comma in an array
	wantNext         // after a value: a comma or the closing bracket
)

// frame is an open object, array or tuple.
type frame struct {
	closer   byte // '}', ']', or ')' for a tuple written as an array
	want     int
	valueEnd int // the length of out after the last value
	commaAt  int // the index in out of a comma not yet followed by a value, or -1
	values   int // the values read
}

// str is the string being read: the quote that closes it ("\"", "'", or
// a doubled quote), and whether it is a key.
type str struct {
	closer string
	key    bool
}

// state is one reading of the text: everything a branch copies.
type state struct {
	pos     int
	stack   []frame
	in      *str // nil outside a string
	out     []byte
	repairs []string
}

func (st *state) clone() *state {
	c := *st
	c.stack = append([]frame(nil), st.stack...)
	c.out = append([]byte(nil), st.out...)
	c.repairs = append([]string(nil), st.repairs...)
	if st.in != nil {
		in := *st.in
		c.in = &in
	}
	return &c
}

func (st *state) repair(name string) { st.repairs = addOnce(st.repairs, name) }
func (st *state) top() *frame        { return &st.stack[len(st.stack)-1] }

// parser reads one object of text. budget bounds the work of all
// readings together, steps and copies: text with too many readings is
// refused.
type parser struct {
	text   string
	budget int
}

// errBudget refuses text whose readings are too many to try.
var errBudget = fmt.Errorf("%w: too many readings to try", ErrAmbiguous)

// parseObject reads the object at text[start] == '{'. It returns the
// state of the reading taken, or of the preferred reading when it
// refuses, with the error.
func parseObject(text string, start int) (*state, error) {
	p := &parser{text: text, budget: 64*(len(text)-start) + 4096}
	st := &state{pos: start + 1, stack: []frame{{closer: '}', want: wantKey, commaAt: -1}}, out: []byte{'{'}}
	return p.run(st)
}

// run steps st until the object closes or the reading fails.
func (p *parser) run(st *state) (*state, error) {
	for len(st.stack) > 0 {
		if p.budget--; p.budget < 0 {
			return st, refuse(p.text, st.pos, errBudget)
		}
		var fork []func(*state) bool
		var err error
		if st.in != nil {
			fork, err = p.stringStep(st)
		} else {
			fork, err = p.step(st)
		}
		if err != nil {
			return st, err
		}
		if fork != nil {
			return p.decide(st, fork)
		}
	}
	if p.continues(st.pos) {
		return st, refuse(p.text, st.pos, fmt.Errorf("%w: more JSON follows the object's closing bracket", ErrTextAfter))
	}
	return st, nil
}

// decide runs each reading of a fork to its end and takes the one that
// succeeds. When none does, it reports the first reading's failure, the
// preferred one.
func (p *parser) decide(st *state, readings []func(*state) bool) (*state, error) {
	var won, first *state
	var firstErr error
	for _, read := range readings {
		// A copy costs the budget what it copies.
		if p.budget -= len(st.out)/8 + len(st.stack) + 1; p.budget < 0 {
			return st, refuse(p.text, st.pos, errBudget)
		}
		c := st.clone()
		if !read(c) {
			continue
		}
		end, err := p.run(c)
		if first == nil {
			first, firstErr = end, err
		}
		if err != nil {
			if isBudget(err) {
				return end, err
			}
			continue
		}
		if won != nil && string(won.out) != string(end.out) {
			return st, refuse(p.text, st.pos, ErrAmbiguous)
		}
		if won == nil {
			won = end
		}
	}
	if won != nil {
		return won, nil
	}
	if first == nil {
		return st, refuse(p.text, st.pos, ErrSyntax)
	}
	return first, firstErr
}

func isBudget(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Err == errBudget
}

// continues reports whether the text after a closed object goes on as
// JSON of that object: a closing brace, a colon, a double quote, or a
// comma and a key.
func (p *parser) continues(i int) bool {
	i = skipSpace(p.text, i)
	if i >= len(p.text) {
		return false
	}
	switch p.text[i] {
	case '}', ':', '"':
		return true
	case ',':
		j := skipSpace(p.text, i+1)
		return j < len(p.text) && (p.text[j] == '"' || p.text[j] == '\'')
	}
	return false
}

func skipSpace(text string, i int) int {
	for i < len(text) && isSpace(text[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// commentAt reports whether a comment starts at text[i]: // or /*, but
// not the // of a URL after its scheme's colon (https://).
func commentAt(text string, i int) bool {
	if i+1 >= len(text) || text[i] != '/' || (text[i+1] != '/' && text[i+1] != '*') {
		return false
	}
	return text[i+1] == '*' || i < 2 || text[i-1] != ':' || !isIdent(text[i-2])
}

// space copies white space and drops comments, and reports false when a
// /* comment never ends.
func (p *parser) space(st *state) bool {
	for st.pos < len(p.text) {
		c := p.text[st.pos]
		switch {
		case isSpace(c):
			st.out = append(st.out, c)
			st.pos++
		case commentAt(p.text, st.pos) && p.text[st.pos+1] == '/':
			st.repair(Comment)
			nl := strings.IndexByte(p.text[st.pos:], '\n')
			if nl < 0 {
				st.pos = len(p.text)
			} else {
				st.pos += nl
			}
		case commentAt(p.text, st.pos):
			st.repair(Comment)
			end := strings.Index(p.text[st.pos+2:], "*/")
			if end < 0 {
				st.pos = len(p.text)
				return false
			}
			st.pos += 2 + end + 2
		default:
			return true
		}
	}
	return true
}
