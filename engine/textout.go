package engine

import (
	"strings"
	"unicode/utf8"
)

// textOut accumulates the generated text, watches for stop strings, and
// streams what is safe to show: everything except an incomplete UTF-8
// sequence at the very end (a character split over tokens) and a possible
// start of a stop string. An invalid byte elsewhere is shown as it is; it
// never holds back the text after it.
type textOut struct {
	text     strings.Builder
	printed  int
	stops    []string
	longest  int // longest stop string
	searched int // the text before this offset holds no stop string
	emit     func(string)
	cut      int // length of the text when a stop string was found, or -1
}

func newTextOut(stops []string, emit func(string)) *textOut {
	o := &textOut{emit: emit, cut: -1}
	for _, w := range stops {
		if w != "" {
			o.stops = append(o.stops, w)
			o.longest = max(o.longest, len(w))
		}
	}
	return o
}

// add appends a piece and returns the stop string it completed, if any.
// When several stop strings appear, the one that starts first wins, as in
// llama-server. Only the text that a new stop string could span is
// searched, so the cost per piece does not grow with the text.
func (o *textOut) add(piece string) string {
	o.text.WriteString(piece)
	s := o.text.String()
	from := max(0, o.searched-o.longest+1)
	at, word := -1, ""
	for _, w := range o.stops {
		if i := strings.Index(s[from:], w); i >= 0 && (at < 0 || from+i < at) {
			at, word = from+i, w
		}
	}
	o.searched = len(s)
	if at >= 0 {
		o.cut = at
		return word
	}
	o.flush(s)
	return ""
}

// flush emits the text after what was printed, holding back an incomplete
// UTF-8 sequence at the end and a suffix that could start a stop string.
func (o *textOut) flush(s string) {
	if o.emit == nil {
		return
	}
	end := len(s) - incompleteSuffix(s[o.printed:])
	for _, w := range o.stops {
		for k := min(len(w)-1, end-o.printed); k > 0; k-- {
			if strings.HasSuffix(s[:end], w[:k]) {
				end -= k
				break
			}
		}
	}
	if end > o.printed {
		o.emit(s[o.printed:end])
		o.printed = end
	}
}

// incompleteSuffix returns the length of a UTF-8 sequence that s ends with
// and that more bytes could still complete; 0 when s ends with a whole
// character or with bytes that no continuation can make valid.
func incompleteSuffix(s string) int {
	for k := 1; k <= min(utf8.UTFMax-1, len(s)); k++ {
		b := s[len(s)-k]
		if b < utf8.RuneSelf {
			return 0 // ASCII: nothing to complete
		}
		if !utf8.RuneStart(b) {
			continue // a continuation byte: look further back
		}
		need := 0
		switch {
		case b&0xE0 == 0xC0:
			need = 2
		case b&0xF0 == 0xE0:
			need = 3
		case b&0xF8 == 0xF0:
			need = 4
		}
		if need > k && !utf8.FullRuneInString(s[len(s)-k:]) {
			return k
		}
		return 0
	}
	return 0
}

// finish returns the final text, cut before a stop string, and emits the
// rest of it.
func (o *textOut) finish() string {
	s := o.text.String()
	if o.cut >= 0 {
		s = s[:o.cut]
	}
	if o.emit != nil && len(s) > o.printed {
		o.emit(s[o.printed:])
		o.printed = len(s)
	}
	return s
}
