package tools

import (
	"bytes"
	"strings"
)

// captureLimit is how many bytes of a command's output a capture keeps at
// each end. The shell tool shows far less; the rest only counts lines.
const captureLimit = 64 << 10

// capture is an io.Writer that keeps the first and the last limit bytes of
// a stream and counts all of its lines, so that a command printing
// gigabytes costs 2*limit bytes of memory. It is not safe for concurrent
// use; one goroutine copies a pipe into it.
type capture struct {
	limit    int
	head     []byte
	tail     []byte // the last bytes, up to 2*limit before it is trimmed
	total    int64
	newlines int64
	last     byte
}

func newCapture(limit int) *capture { return &capture{limit: limit} }

func (c *capture) Write(p []byte) (int, error) {
	n := len(p)
	c.total += int64(n)
	c.newlines += int64(bytes.Count(p, []byte{'\n'}))
	if n > 0 {
		c.last = p[n-1]
	}
	if room := c.limit - len(c.head); room > 0 {
		k := min(room, len(p))
		c.head = append(c.head, p[:k]...)
		p = p[k:]
	}
	if len(p) > 0 {
		c.tail = append(c.tail, p...)
		if len(c.tail) > 2*c.limit {
			c.tail = append(c.tail[:0], c.tail[len(c.tail)-c.limit:]...)
		}
	}
	return n, nil
}

// lines is the number of lines written; a last line without a newline
// counts.
func (c *capture) lines() int {
	n := int(c.newlines)
	if c.total > 0 && c.last != '\n' {
		n++
	}
	return n
}

// Text is the output cut as TruncateHeadTail cuts it. When the capture
// dropped the middle of the stream, the marker counts the dropped lines
// too (a line longer than the limit may be counted once too often).
func (c *capture) Text(head, tail, maxChars int) string {
	if c.total == int64(len(c.head)+len(c.tail)) {
		return strings.ToValidUTF8(TruncateHeadTail(string(c.head)+string(c.tail), head, tail, maxChars), "\uFFFD")
	}
	headPart := c.head
	if i := bytes.LastIndexByte(headPart, '\n'); i >= 0 {
		headPart = headPart[:i]
	}
	tailPart := c.tail
	if i := bytes.IndexByte(tailPart, '\n'); i >= 0 && i < len(tailPart)-1 {
		tailPart = tailPart[i+1:]
	}
	hl, tl := splitLines(string(headPart)), splitLines(string(tailPart))
	hidden := max(c.lines()-len(hl)-len(tl), 1)
	lines := append(hl, tl...)
	return strings.ToValidUTF8(cutLines(lines, len(hl), hidden, head, tail, maxChars), "\uFFFD")
}
