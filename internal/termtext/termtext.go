// Package termtext makes text that came from a file, a command or a model
// safe to print on a terminal. A README can hold escape sequences that set
// the window title, clear the screen or paint a fake "all tests passed";
// a terminal obeys them when the text is printed raw. Strip removes them:
//
//	fmt.Fprintln(w, termtext.Strip(result))
//
// A Stripper does the same on a stream cut anywhere (a model's reply as it
// streams), keeping the state of a sequence or a character cut between
// two pieces:
//
//	var s termtext.Stripper
//	for _, piece := range deltas {
//		io.WriteString(w, s.Next(piece))
//	}
//	io.WriteString(w, s.Flush())
//
// What comes out is valid UTF-8 and holds no ESC, no other C0 control but
// newline and tab, no DEL, no C1 control (U+0080–U+009F) and no
// bidirectional embedding, override or isolate (U+202A–U+202E,
// U+2066–U+2069, which can make a line read differently from what it
// holds). Escape sequences are removed whole, as ECMA-48 delimits them:
// ESC and one final character, CSI up to its final byte, and the control
// strings OSC, DCS, SOS, PM and APC up to BEL or ST. Unlike a terminal, a
// newline also ends a control string, so that one unterminated string
// cannot hide the rest of the text. Invalid UTF-8 becomes U+FFFD.
//
// Only the view strips: transcripts keep the bytes as they were.
package termtext

import (
	"strings"
	"unicode/utf8"
)

// Strip returns text without control sequences and controls.
func Strip(text string) string {
	var s Stripper
	return s.Next(text) + s.Flush()
}

// Stripper strips a text that arrives in pieces. Next(a)+Next(b)+Flush()
// equals Strip(a+b) wherever the text is cut. The zero value is ready to
// use. A Stripper is not safe for concurrent use.
type Stripper struct {
	state   state
	pending [utf8.UTFMax]byte // the start of a character cut by the end of a piece
	n       int               // bytes in pending
}

// state is where a Stripper is in an escape sequence.
type state uint8

const (
	ground     state = iota // text
	escape                  // after ESC
	escInter                // after ESC and intermediate bytes, before the final one
	csi                     // in a control sequence, before its final byte
	ctrlString              // in OSC, DCS, SOS, PM or APC, before BEL or ST
)

// Next returns the text of piece that is safe to print now. The start of a
// character cut by the end of piece waits for the next piece.
func (s *Stripper) Next(piece string) string {
	if s.n > 0 {
		piece = string(s.pending[:s.n]) + piece
		s.n = 0
	}
	var b strings.Builder
	b.Grow(len(piece))
	for i := 0; i < len(piece); {
		if !utf8.FullRuneInString(piece[i:]) {
			s.n = copy(s.pending[:], piece[i:])
			break
		}
		r, size := utf8.DecodeRuneInString(piece[i:])
		s.step(&b, r)
		i += size
	}
	return b.String()
}

// Flush ends the text: the bytes of a cut character become U+FFFD, a
// sequence left open is dropped, and the Stripper is ready for a new
// text.
func (s *Stripper) Flush() string {
	var b strings.Builder
	for range s.n {
		s.step(&b, utf8.RuneError)
	}
	s.n, s.state = 0, ground
	return b.String()
}

// step reads one character. A character that cannot continue the current
// sequence ends it and is read again as text, as a terminal does.
func (s *Stripper) step(b *strings.Builder, r rune) {
	switch s.state {
	case escape:
		s.state = ground
		switch {
		case r == '[':
			s.state = csi
			return
		case r == ']' || r == 'P' || r == 'X' || r == '^' || r == '_':
			s.state = ctrlString
			return
		case r >= 0x20 && r <= 0x2F:
			s.state = escInter
			return
		case r >= 0x30 && r <= 0x7E:
			return // ESC 7, ESC c, ESC \ (ST), ...
		}
	case escInter:
		if r >= 0x20 && r <= 0x2F {
			return
		}
		s.state = ground
		if r >= 0x30 && r <= 0x7E {
			return
		}
	case csi:
		if r >= 0x20 && r <= 0x3F {
			return // parameter and intermediate bytes
		}
		s.state = ground
		if r >= 0x40 && r <= 0x7E {
			return // the final byte
		}
	case ctrlString:
		switch r {
		case 0x07, 0x9C: // BEL, ST
			s.state = ground
			return
		case 0x1B: // ESC \ is ST; ESC and anything else starts a new sequence
			s.state = escape
			return
		case '\n':
			s.state = ground
		default:
			return
		}
	}
	s.text(b, r)
}

// text writes r unless it is a control, which it drops; ESC and the C1
// controls that open a sequence start one.
func (s *Stripper) text(b *strings.Builder, r rune) {
	switch {
	case r == 0x1B:
		s.state = escape
	case r == 0x9B: // CSI
		s.state = csi
	case r == 0x90 || r == 0x98 || r == 0x9D || r == 0x9E || r == 0x9F: // DCS, SOS, OSC, PM, APC
		s.state = ctrlString
	case r == '\n' || r == '\t':
		b.WriteRune(r)
	case r < 0x20 || r >= 0x7F && r <= 0x9F, bidi(r):
	default:
		b.WriteRune(r)
	}
}

// bidi reports whether r is a bidirectional embedding, override or
// isolate, which reorder the text that follows them on screen.
func bidi(r rune) bool {
	return r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069
}
