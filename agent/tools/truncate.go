package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// TruncateHeadTail shortens text by whole lines: it keeps at most head
// lines from the start and tail lines from the end, and puts one marker
// line "[N lines cut]" where the others were: the first line names what
// ran, the last
// lines hold the verdict, and no path or number is split.
//
// maxChars, when positive, bounds the kept lines in bytes (the marker
// line comes on top): the head may use a third of it and the tail the
// rest (all of it when only one end is kept), and a single line longer than its share is cut inside, ending in
// " [N chars cut]". At least the first and the last line are kept.
//
// A text that fits is returned unchanged.
func TruncateHeadTail(text string, head, tail, maxChars int) string {
	if text == "" {
		return ""
	}
	lines := splitLines(text)
	if len(lines) <= max(head, 0)+max(tail, 0) && (maxChars <= 0 || len(text) <= maxChars) {
		return text
	}
	return cutLines(lines, len(lines), 0, head, tail, maxChars)
}

// splitLines splits text into lines; a final newline does not start a
// line.
func splitLines(text string) []string {
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// cutLines keeps head lines from the start and tail lines from the end
// of a text made of lines[:gap], then hidden lines nobody kept, then
// lines[gap:]. The head comes from lines[:gap] only and, when lines are
// hidden, the tail from lines[gap:] only.
func cutLines(lines []string, gap, hidden, head, tail, maxChars int) string {
	n := len(lines)
	h := max(0, min(head, gap))
	t := max(0, min(tail, n-h))
	if hidden > 0 {
		t = max(0, min(tail, n-gap))
	}
	headLines, tailLines := lines[:h], lines[n-t:]
	if maxChars > 0 {
		headBudget := maxChars
		if t > 0 {
			headBudget = maxChars / 3
		}
		var used int
		headLines, used = takeFront(headLines, headBudget)
		tailLines = takeBack(tailLines, maxChars-used)
	}
	cut := n + hidden - len(headLines) - len(tailLines)
	var b strings.Builder
	for _, l := range headLines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if cut > 0 {
		b.WriteString(linesCutMarker(cut))
		b.WriteByte('\n')
	}
	for _, l := range tailLines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// linesCutMarker is the line that stands for n lines left out.
func linesCutMarker(n int) string {
	if n == 1 {
		return "[1 line cut]"
	}
	return fmt.Sprintf("[%d lines cut]", n)
}

// takeFront keeps the first lines that fit in budget bytes (a newline
// each), at least one, cut inside when it alone is too long. It returns
// the lines kept and the bytes they use.
func takeFront(lines []string, budget int) ([]string, int) {
	var out []string
	used := 0
	for _, l := range lines {
		if used+len(l)+1 > budget {
			if len(out) == 0 {
				l = cutLine(l, max(budget-1, 1))
				out = append(out, l)
				used += len(l) + 1
			}
			break
		}
		out = append(out, l)
		used += len(l) + 1
	}
	return out, used
}

// takeBack keeps the last lines that fit in budget bytes, at least one.
func takeBack(lines []string, budget int) []string {
	used, first := 0, len(lines)
	for i := len(lines) - 1; i >= 0; i-- {
		if used+len(lines[i])+1 > budget {
			if first == len(lines) {
				out := append([]string(nil), lines[i+1:]...)
				return append([]string{cutLine(lines[i], max(budget-1, 1))}, out...)
			}
			break
		}
		used += len(lines[i]) + 1
		first = i
	}
	return lines[first:]
}

// cutLine keeps about the first max bytes of line, at a character
// boundary, and says how many characters it left out.
func cutLine(line string, max int) string {
	if len(line) <= max {
		return line
	}
	keep := max
	for keep > 0 && !utf8.RuneStart(line[keep]) {
		keep--
	}
	return fmt.Sprintf("%s [%d chars cut]", line[:keep], utf8.RuneCountInString(line[keep:]))
}
