package tools

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readAllLines reads text through a lineReader and returns each line as
// "kept|dropped", and the last error other than io.EOF.
func readAllLines(text string, bufSize, keep int, limit int64) ([]string, bool, error) {
	lr := &lineReader{br: bufio.NewReaderSize(strings.NewReader(text), bufSize), keep: keep, limit: limit}
	var out []string
	for {
		line, dropped, err := lr.next()
		if err == io.EOF {
			return out, lr.stopped, nil
		}
		if err != nil && err != errReadLimit {
			return out, lr.stopped, err
		}
		out = append(out, string(line)+"|"+strconv.Itoa(dropped))
	}
}

func TestLineReader(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		keep    int
		limit   int64
		want    []string
		stopped bool
	}{
		{name: "lines", text: "a\nbb\n", keep: 8, want: []string{"a|0", "bb|0"}},
		{name: "no final newline", text: "a\nbb", keep: 8, want: []string{"a|0", "bb|0"}},
		{name: "empty lines", text: "\n\n", keep: 8, want: []string{"|0", "|0"}},
		{name: "empty", text: "", keep: 8, want: nil},
		{name: "crlf", text: "a\r\nb\r\n", keep: 8, want: []string{"a|0", "b|0"}},
		{name: "long line cut", text: "abcdefghij\nk\n", keep: 4, want: []string{"abcd|6", "k|0"}},
		{name: "long crlf line: the \\r is not counted", text: "abcdefghij\r\n", keep: 4, want: []string{"abcd|6"}},
		{name: "characters, not bytes", text: "abcdééé\n", keep: 4, want: []string{"abcd|3"}},
		{name: "limit between lines", text: "ab\ncd\nef\n", keep: 8, limit: 6, want: []string{"ab|0", "cd|0"}, stopped: true},
		{name: "limit inside a line", text: "ab\ncdef\n", keep: 8, limit: 5, want: []string{"ab|0", "cd|0"}, stopped: true},
		{name: "limit at the end", text: "ab\ncd\n", keep: 8, limit: 6, want: []string{"ab|0", "cd|0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A 16-byte buffer makes every long line span several reads.
			got, stopped, err := readAllLines(tt.text, 16, tt.keep, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" || stopped != tt.stopped {
				t.Errorf("lines of %q (keep %d, limit %d), stopped %v, want %v; -want +got:\n%s", tt.text, tt.keep, tt.limit, stopped, tt.stopped, diff)
			}
		})
	}
}

// endless is a reader of n bytes of 'x' and then a newline, made as it is
// read: a line of n bytes that never exists whole in memory.
type endless struct{ n int }

func (e *endless) Read(p []byte) (int, error) {
	if e.n < 0 {
		return 0, io.EOF
	}
	i := 0
	for ; i < len(p) && e.n > 0; i++ {
		p[i] = 'x'
		e.n--
	}
	if i < len(p) && e.n == 0 {
		p[i] = '\n'
		i++
		e.n = -1
	}
	return i, nil
}

// TestLineReaderKeepsLittle reads a line of 50 MB: the line comes back
// cut at keep bytes, with the rest counted, and the reader's own buffer
// never grew past keep.
func TestLineReaderKeepsLittle(t *testing.T) {
	const size = 50 << 20
	lr := &lineReader{br: bufio.NewReaderSize(&endless{n: size}, 64<<10), keep: 504}
	line, dropped, err := lr.next()
	if err != nil {
		t.Fatal(err)
	}
	if len(line) != 504 || dropped != size-504 {
		t.Errorf("next() = %d bytes kept, %d dropped; want 504 and %d", len(line), dropped, size-504)
	}
	if cap(lr.line) > 1024 {
		t.Errorf("the kept line's buffer grew to %d bytes for keep 504", cap(lr.line))
	}
	if _, _, err := lr.next(); !errors.Is(err, io.EOF) {
		t.Errorf("second next() = %v, want io.EOF", err)
	}
}

func TestCutKept(t *testing.T) {
	tests := []struct {
		name, line string
		dropped    int
		want       string
	}{
		{name: "fits", line: "abc", want: "abc"},
		{name: "cut, nothing dropped", line: "abcdef", want: "abcd [2 chars cut]"},
		{name: "kept and dropped", line: "abcdef", dropped: 10, want: "abcd [12 chars cut]"},
		{name: "character boundary", line: "abcé", dropped: 1, want: "abc [2 chars cut]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cutKept(tt.line, tt.dropped, 4); got != tt.want {
				t.Errorf("cutKept(%q, %d, 4) = %q, want %q", tt.line, tt.dropped, got, tt.want)
			}
		})
	}
}
