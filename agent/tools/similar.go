package tools

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Finding the lines of a file nearest to a text that was not found in it,
// so that a failed edit_file can quote them and the next try can copy
// them exactly. Lines are compared by the Dice coefficient of their
// character bigrams after runs of white space are collapsed: cheap enough
// to slide over every window of a large file, and it scores a line with a
// changed indent or one wrong token close to 1.
//
// The search is bounded whatever the file: only the first similarBytes
// of a line are compared (a minified line of megabytes costs as much as
// one of 256 bytes), and the lines of the text that count in a window's
// score are cut so that all comparisons together merge at most maxWork
// bigrams.

// nearest is the window of a file most similar to a text.
type nearest struct {
	start, n int     // lines [start, start+n), from 0
	score    float64 // mean similarity of the lines, 0 to 1
}

const (
	// similarBytes is how much of a line is compared.
	similarBytes = 256
	// maxWork bounds one search: the bigrams merged over all comparisons.
	maxWork = 40_000_000
)

// lineBigrams holds the bigrams of many lines in one slice, so that a
// file of a million short lines is two allocations, not a million.
type lineBigrams struct {
	all []uint64
	off []int32 // line i is all[off[i]:off[i+1]]
}

func newLineBigrams(lines []string) lineBigrams {
	size := 0
	for _, l := range lines {
		size += min(len(l), similarBytes)
	}
	lb := lineBigrams{all: make([]uint64, 0, size+len(lines)), off: make([]int32, 1, len(lines)+1)}
	for _, l := range lines {
		lb.all = appendBigrams(lb.all, l)
		lb.off = append(lb.off, int32(len(lb.all)))
	}
	return lb
}

func (lb lineBigrams) line(i int) []uint64 { return lb.all[lb.off[i]:lb.off[i+1]] }

// nearestLines finds the window of len(want) lines of file whose lines are
// most like want's, line by line. Ties go to the earliest window.
func nearestLines(file, want []string) nearest {
	if len(file) == 0 || len(want) == 0 {
		return nearest{}
	}
	fb := newLineBigrams(file)
	wb := newLineBigrams(want)
	// A comparison of line j of want merges about the mean file line and
	// line j; k lines of want count, as many as the work allows.
	meanFile := len(fb.all)/len(file) + 1
	k, work := 0, 0
	for k < len(want) {
		work += len(file) * (meanFile + len(wb.line(k)))
		if k > 0 && work > maxWork {
			break
		}
		k++
	}
	best := nearest{n: min(len(want), len(file)), score: -1}
	for i := range file {
		sum := 0.0
		for j := 0; j < k && i+j < len(file); j++ {
			sum += dice(fb.line(i+j), wb.line(j))
		}
		if s := sum / float64(k); s > best.score {
			best.start, best.score = i, s
		}
	}
	best.n = min(len(want), len(file)-best.start)
	return best
}

// appendBigrams appends the sorted character bigrams of the first
// similarBytes of s, white space collapsed to one space and trimmed, to
// out. A string of one character is its own bigram.
func appendBigrams(out []uint64, s string) []uint64 {
	if len(s) > similarBytes {
		cut := similarBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	start, n := len(out), 0 // n counts the characters of the collapsed text
	var prev rune
	space := false // white space seen since prev
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = n > 0
			continue
		}
		if space {
			out = append(out, uint64(prev)<<32|' ')
			prev, n, space = ' ', n+1, false
		}
		if n > 0 {
			out = append(out, uint64(prev)<<32|uint64(r))
		}
		prev, n = r, n+1
	}
	if n == 1 {
		return append(out, uint64(prev)<<32|0xFFFFFFFF)
	}
	slices.Sort(out[start:])
	return out
}

// dice is 2|A∩B| / (|A|+|B|) for sorted multisets: 1 for equal lines, 1
// for two blank lines, 0 for nothing in common.
func dice(a, b []uint64) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	common, i, j := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}

// numberLines writes lines numbered from first as read_file does, "N| text".
func numberLines(b *strings.Builder, lines []string, first int) {
	for i, l := range lines {
		fmt.Fprintf(b, "%d| %s\n", first+i, cutLine(strings.TrimRight(l, "\r"), maxLineChars))
	}
}

// sameButSpace reports whether a and b differ only in white space.
func sameButSpace(a, b string) bool {
	return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
}
