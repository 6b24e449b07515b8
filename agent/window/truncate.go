package window

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The truncation policies. Each cuts a text that is over its limit and
// puts a marker where it cut, saying how much is missing, so that the
// model can ask for the rest (a read with an offset, a command piped
// through grep) instead of guessing. Characters are Unicode code points,
// so a cut never splits one. The limits count the kept text, and the
// marker comes on top (TruncateHeadTail of a 1,331-character log to 160
// characters gives 178), so that a limit says how much of the tool's own
// output the model sees; Truncation.Within bounds the whole result instead.

// TruncateHead keeps the first max characters.
func TruncateHead(s string, max int) string {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	return firstRunes(s, max) + "\n" + charMarker(n-max)
}

// TruncateTail keeps the last max characters.
func TruncateTail(s string, max int) string {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	return charMarker(n-max) + "\n" + lastRunes(s, max)
}

// TruncateHeadTail keeps max/2 characters from each end, as mini-swe-agent
// does (output_head, output_tail, elided_chars).
func TruncateHeadTail(s string, max int) string {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	half := max / 2
	return firstRunes(s, half) + "\n" + charMarker(n-2*half) + "\n" + lastRunes(s, half)
}

// TruncateLines keeps whole lines from both ends, first a line from the
// head, then one from the tail, and so on, while the kept lines (with
// their newlines) fit in max characters. A text whose first line alone is
// over max is cut with TruncateHeadTail instead.
func TruncateLines(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	head, tail, ok := fitLines(s, max, 0)
	if !ok {
		return TruncateHeadTail(s, max)
	}
	return joinKept(s, head, tail)
}

// fitLines picks how many lines to keep from each end so that they, plus
// markerLines lines of marker when anything is cut, fit in max characters.
func fitLines(s string, max, markerSlack int) (head, tail int, ok bool) {
	lines, _ := splitLines(s)
	used := 0
	h, t := 0, 0
	cost := func(l string) int { return utf8.RuneCountInString(l) + 1 }
	for h+t < len(lines) {
		grew := false
		if c := cost(lines[h]); used+c+markerSlack <= max {
			used += c
			h++
			grew = true
		}
		if h+t < len(lines) {
			if c := cost(lines[len(lines)-1-t]); used+c+markerSlack <= max {
				used += c
				t++
				grew = true
			}
		}
		if !grew {
			break
		}
	}
	if h == 0 {
		return 0, 0, false
	}
	return h, t, true
}

// joinKept joins the first head and last tail lines of s around a marker.
func joinKept(s string, head, tail int) string {
	lines, nl := splitLines(s)
	if head+tail >= len(lines) {
		return s
	}
	out := append([]string{}, lines[:head]...)
	out = append(out, lineMarker(len(lines)-head-tail))
	out = append(out, lines[len(lines)-tail:]...)
	return strings.Join(out, "\n") + nl
}

// splitLines splits s into lines; nl is "\n" when s ended with one.
func splitLines(s string) (lines []string, nl string) {
	if strings.HasSuffix(s, "\n") {
		s, nl = s[:len(s)-1], "\n"
	}
	return strings.Split(s, "\n"), nl
}

func charMarker(n int) string { return "[" + strconv.Itoa(n) + plural(n, " char", " chars") + " cut]" }

func lineMarker(n int) string { return "[" + strconv.Itoa(n) + plural(n, " line", " lines") + " cut]" }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// firstRunes returns the first n runes of s.
func firstRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// lastRunes returns the last n runes of s.
func lastRunes(s string, n int) string {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}
