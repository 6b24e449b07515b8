package grammar

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Quote returns s as a GBNF string literal: in double quotes, with \, ", and
// control characters escaped (\n, \r, \t, \xHH) so that llama.cpp's parser
// reads back exactly s. GBNF matches code points, not bytes: an invalid
// UTF-8 byte is written as \xHH, which llama.cpp reads as the code point
// U+00HH.
func Quote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			fmt.Fprintf(&b, `\x%02X`, s[i])
			i++
			continue
		}
		writeEscaped(&b, r, `"\`)
		i += size
	}
	b.WriteByte('"')
	return b.String()
}

// writeEscaped writes r, escaping backslash, the characters in special, and
// control characters. llama.cpp's parse_char knows only \\ \" \[ \] \t \r
// \n \xHH \uHHHH and \UHHHHHHHH, so other special characters get \xHH, and
// a rune that UTF-8 cannot hold (a surrogate) gets \uHHHH.
func writeEscaped(b *strings.Builder, r rune, special string) {
	switch {
	case !utf8.ValidRune(r) && r >= 0 && r <= 0xFFFF:
		fmt.Fprintf(b, `\u%04X`, r)
	case !utf8.ValidRune(r):
		fmt.Fprintf(b, `\U%08X`, uint32(r))
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r == '\t':
		b.WriteString(`\t`)
	case r == '\\' || strings.ContainsRune(special, r) && strings.ContainsRune(`"[]`, r):
		b.WriteByte('\\')
		b.WriteRune(r)
	case strings.ContainsRune(special, r):
		fmt.Fprintf(b, `\x%02X`, r)
	case r < 0x20 || r == 0x7F:
		fmt.Fprintf(b, `\x%02X`, r)
	default:
		b.WriteRune(r)
	}
}

// ClassChar writes r for use inside a GBNF character class [...], escaping
// ], [ and \ with a backslash, - and ^ as \x2D and \x5E (llama.cpp has no
// \- or \^), and control characters.
func ClassChar(r rune) string {
	var b strings.Builder
	writeEscaped(&b, r, `]-^[`)
	return b.String()
}
