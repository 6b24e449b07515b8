package tools

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"
)

// errReadLimit is a lineReader that has read its limit of bytes.
var errReadLimit = errors.New("read limit reached")

// lineReader reads text line by line and holds at most keep bytes of a
// line: the rest of a longer line is read and counted, never kept, so a
// file of one 400 MB line costs the reader's buffer and keep bytes, not
// 400 MB. read_file and grep read through it. It stops after limit bytes
// in all (none when limit is zero), in the middle of a line if need be.
type lineReader struct {
	br    *bufio.Reader
	keep  int   // bytes of a line kept
	limit int64 // bytes read at most; 0 for no limit
	read  int64 // bytes read so far
	// stopped is set when the limit left bytes of the text unread.
	stopped bool
	line    []byte
}

// next returns the next line, without its "\n" or "\r\n": its first keep
// bytes, valid until the next call, and how many characters after them
// were dropped (UTF-8 characters, counted by their first bytes). err is
// io.EOF after the last line, and errReadLimit with the part of a line
// read when the limit came first; the next call then returns io.EOF.
func (lr *lineReader) next() (line []byte, dropped int, err error) {
	lr.line = lr.line[:0]
	started, lastCR := false, false
	for {
		if lr.limit > 0 && lr.read >= lr.limit {
			if _, err := lr.br.Peek(1); err == nil {
				lr.stopped = true
			}
			if !started {
				return nil, 0, io.EOF
			}
			return lr.line, dropped, errReadLimit
		}
		chunk, err := lr.br.ReadSlice('\n')
		if lr.limit > 0 && lr.read+int64(len(chunk)) > lr.limit {
			// Past the limit: take what fits; the rest stays unread.
			chunk, err = chunk[:lr.limit-lr.read], bufio.ErrBufferFull
			lr.stopped = true
		}
		lr.read += int64(len(chunk))
		started = started || len(chunk) > 0
		body := chunk
		if err == nil {
			body = chunk[:len(chunk)-1] // the "\n"
		}
		if len(body) > 0 {
			lastCR = body[len(body)-1] == '\r'
		}
		take := min(max(lr.keep-len(lr.line), 0), len(body))
		lr.line = append(lr.line, body[:take]...)
		dropped += runeStarts(body[take:])
		switch {
		case err == nil, err == io.EOF && started:
			return lr.endLine(dropped, lastCR)
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			return nil, 0, io.EOF
		}
		return nil, 0, err
	}
}

// endLine removes a "\r" that ended the line, kept or dropped.
func (lr *lineReader) endLine(dropped int, lastCR bool) ([]byte, int, error) {
	switch {
	case lastCR && dropped > 0:
		dropped--
	case lastCR:
		lr.line = lr.line[:len(lr.line)-1]
	}
	return lr.line, dropped, nil
}

// runeStarts counts the UTF-8 characters of b by their first bytes; for
// valid UTF-8 it is utf8.RuneCount, and a character split across two
// reads counts once.
func runeStarts(b []byte) int {
	n := 0
	for _, c := range b {
		if utf8.RuneStart(c) {
			n++
		}
	}
	return n
}

// cutKept is cutLine for a line of which only the first bytes were kept
// and dropped more characters were not: about the first max bytes, at a
// character boundary, and how many characters were left out.
func cutKept(line string, dropped, max int) string {
	if dropped == 0 {
		return cutLine(line, max)
	}
	keep := min(max, len(line))
	for keep > 0 && keep < len(line) && !utf8.RuneStart(line[keep]) {
		keep--
	}
	return fmt.Sprintf("%s [%d chars cut]", line[:keep], utf8.RuneCountInString(line[keep:])+dropped)
}
