package callformat

import (
	"encoding/json"
	"strings"

	"github.com/loopagent/loop/agent/chat"
)

// A stream parser runs the partial scan on all the text so far at each
// Feed. To keep that linear in the text, the scan's costly steps (marker
// searches, JSON values, strings and their decoding, Qwen3-Coder's
// parameters) remember where they got to in a scanMemo that lives from one
// Feed to the next, and go on from there. A step is keyed by the position
// where it starts, which stays valid because each Feed's text extends the
// last one: every memoized call reads the stream's text (or a prefix of
// it), never a substring that starts elsewhere. A memo entry made on a
// longer text than the one at hand is not used.
//
// A nil *scanMemo remembers nothing: Parse and Finish scan as before.
type scanMemo struct {
	// work counts the bytes the memoized steps read; TestStreamLinear
	// checks that it grows linearly with the text.
	work     int
	searches map[searchKey]search
	strs     map[int]int // string start -> where its scan goes on
	values   map[int]*valueResume
	objects  map[int]*objectResume
	decoded  map[int]*decodeResume
	quoted   map[int]*quoteResume
	calls    map[int]*xmlResume
	// loops are where the scan's loops settled, by the loop's start
	// (topLoop for the scanner's own); items[:settled] are final.
	loops   map[int]*loopResume
	settled int
}

// topLoop keys the scanner's own loop in scanMemo.loops.
const topLoop = -1

// loopResume is a loop of the scan at pos, with its items so far and
// what else the loop keeps (state).
type loopResume struct {
	items []item
	pos   int
	state int
}

func newScanMemo() *scanMemo {
	return &scanMemo{searches: map[searchKey]search{}, strs: map[int]int{}, values: map[int]*valueResume{},
		objects: map[int]*objectResume{}, decoded: map[int]*decodeResume{},
		quoted: map[int]*quoteResume{}, calls: map[int]*xmlResume{}, loops: map[int]*loopResume{}}
}

type searchKey struct {
	pos    int
	marker string
}

// search is where a search for a marker from a position stands: found, or
// no match starts before from.
type search struct {
	found int // -1 while not found
	from  int
}

// index returns the index of the first marker in t at or after pos, or -1.
func (m *scanMemo) index(t string, pos int, marker string) int {
	if m == nil {
		if j := strings.Index(t[pos:], marker); j >= 0 {
			return pos + j
		}
		return -1
	}
	k := searchKey{pos, marker}
	from := pos
	if e, ok := m.searches[k]; ok {
		if e.found >= 0 && e.found+len(marker) <= len(t) {
			return e.found
		}
		if e.found < 0 && e.from <= len(t) {
			from = e.from
		}
	}
	m.work += len(t) - from
	if j := strings.Index(t[from:], marker); j >= 0 {
		m.searches[k] = search{found: from + j}
		return from + j
	}
	m.searches[k] = search{found: -1, from: max(pos, len(t)-len(marker)+1)}
	return -1
}

// settle tells a stream's memo that the loop that started at start (or
// topLoop) is at pos, at the top of an iteration, with all the scan's items
// final: the calls, reasoning and content before pos are complete, and
// what follows cannot change them. The next Feed's scan resumes the loop
// there instead of starting it over. A loop at the end of the text may
// still be inside something (a block of calls whose end has not come), so
// pos must be short of it.
func (s *scanState) settle(start, pos int) { s.settleState(start, pos, 0) }

// settleState is settle for a loop that keeps more than its position.
func (s *scanState) settleState(start, pos, state int) {
	m := s.memo
	if m == nil || pos >= len(s.text) {
		return
	}
	r := m.loops[start]
	if r == nil {
		r = &loopResume{}
		m.loops[start] = r
	}
	if pos > r.pos {
		r.items, r.pos, r.state = s.items, pos, state
		m.settled = max(m.settled, len(s.items))
	}
}

// resume returns where the loop that starts at start last settled, having
// restored the scan's items to what they were then, or false when it
// starts from the beginning.
func (s *scanState) resume(start int) (int, bool) {
	pos, _, ok := s.resumeState(start)
	return pos, ok
}

// resumeState is resume for a loop that keeps more than its position.
func (s *scanState) resumeState(start int) (pos, state int, ok bool) {
	m := s.memo
	if m == nil {
		return 0, 0, false
	}
	r := m.loops[start]
	if r == nil || r.pos >= len(s.text) {
		return 0, 0, false
	}
	s.items = r.items
	return r.pos, r.state, true
}

// indexAt is strings.Index(s.text[pos:], marker), remembered by a stream.
func (s *scanState) indexAt(pos int, marker string) int {
	if j := s.memo.index(s.text, pos, marker); j >= 0 {
		return j - pos
	}
	return -1
}

// valueResume is the state of a JSON value's scan at its last step: the
// next value starts at i, inside the containers of stack.
type valueResume struct {
	i     int
	stack []byte
}

// maxResumeDepth bounds the nesting whose state a value's scan keeps.
const maxResumeDepth = 64

func (m *scanMemo) valueAt(s string, start int) (int, []byte) {
	if m == nil {
		return start, nil
	}
	if e := m.values[start]; e != nil && e.i <= len(s) {
		return e.i, append([]byte(nil), e.stack...)
	}
	return start, nil
}

func (m *scanMemo) saveValue(start, i int, stack []byte) {
	if m == nil || len(stack) > maxResumeDepth {
		return
	}
	e := m.values[start]
	if e == nil {
		e = &valueResume{}
		m.values[start] = e
	}
	e.i, e.stack = i, append(e.stack[:0], stack...)
}

// objectResume is the state of an object's scan at its last member: the
// next key starts at i, after the members ms.
type objectResume struct {
	i  int
	ms []jsonMember
}

// decodeResume is a string decoded up to cut, a point where more text
// cannot change the decoding of what comes before.
type decodeResume struct {
	cut int
	out strings.Builder
}

// decodeString is decodeStringPrefix(s[val:end]).
func (m *scanMemo) decodeString(s string, val, end int) string {
	if m == nil {
		return decodeStringPrefix(s[val:end])
	}
	s = s[:end]
	e := m.decoded[val]
	if e == nil || e.cut > len(s) {
		e = &decodeResume{cut: val + 1}
		m.decoded[val] = e
	}
	strEnd, st := m.scanString(s, val)
	upTo := strEnd - 1 // before the closing quote
	if st != jsonDone {
		upTo = safeStringCutFrom(s[:strEnd], e.cut)
	}
	if upTo > e.cut {
		m.work += upTo - e.cut
		var piece string
		if json.Unmarshal([]byte(`"`+s[e.cut:upTo]+`"`), &piece) != nil {
			delete(m.decoded, val)
			return decodeStringPrefix(s[val:])
		}
		e.out.WriteString(piece)
		e.cut = upTo
	}
	return e.out.String()
}

// xmlResume is where the scan of a Qwen3-Coder function's parameters
// stands: the next parameter at i, n of them read into args, or the whole
// function read (done, ending at end).
type xmlResume struct {
	i, n int
	args strings.Builder
	done bool
	end  int
}

// xmlCall returns the state of the function whose parameters start at i;
// a fresh one without a memo.
func (m *scanMemo) xmlCall(i, textLen int) *xmlResume {
	if m == nil {
		return &xmlResume{i: i}
	}
	r := m.calls[i]
	if r == nil || r.i > textLen || r.done && r.end > textLen {
		r = &xmlResume{i: i}
		m.calls[i] = r
	}
	return r
}

// quoteResume is a parameter's text quoted as a JSON string so far, after
// its key (head), without the closing quote.
type quoteResume struct {
	raw int // bytes of the text quoted
	out strings.Builder
}

// quotedPrefix returns head and raw, the cut-off text of the parameter
// that starts at i, quoted as a JSON string without its closing quote.
func (m *scanMemo) quotedPrefix(i int, head, raw string) string {
	if m == nil {
		q := chat.QuoteJSON(raw)
		return head + q[:len(q)-1]
	}
	r := m.quoted[i]
	if r == nil || r.raw > len(raw) {
		r = &quoteResume{}
		r.out.WriteString(head + `"`)
		m.quoted[i] = r
	}
	if len(raw) > r.raw {
		m.work += len(raw) - r.raw
		q := chat.QuoteJSON(raw[r.raw:])
		r.out.WriteString(q[1 : len(q)-1])
		r.raw = len(raw)
	}
	return r.out.String()
}

// setArgs sets the arguments of c to head and tail: joined in a final
// scan, apart in a stream's, where head is the settled part the memo
// keeps and joining would copy it at each Feed.
func (s *scanState) setArgs(c *callItem, head, tail string) {
	if s.memo == nil {
		c.head, c.args = "", head+tail
		return
	}
	c.head, c.args = head, tail
}
