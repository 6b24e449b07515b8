package tools

import (
	"fmt"
	"slices"
	"strings"
)

// Finding the lines of a file nearest to a text that was not found in it,
// so that a failed edit_file can quote them and the next try can copy
// them exactly. Lines are compared by the Dice coefficient of their
// character bigrams after runs of white space are collapsed: cheap enough
// to slide over every window of a large file, and it scores a line with a
// changed indent or one wrong token close to 1.

// nearest is the window of a file most similar to a text.
type nearest struct {
	start, n int     // lines [start, start+n), from 0
	score    float64 // mean similarity of the lines, 0 to 1
}

// maxComparisons bounds the line comparisons of one search.
const maxComparisons = 2_000_000

// nearestLines finds the window of len(want) lines of file whose lines are
// most like want's, line by line. Ties go to the earliest window.
func nearestLines(file, want []string) nearest {
	if len(file) == 0 || len(want) == 0 {
		return nearest{}
	}
	k := min(len(want), max(1, maxComparisons/len(file))) // lines that count in the score
	fb := make([][]uint64, len(file))
	for i, l := range file {
		fb[i] = bigrams(l)
	}
	wb := make([][]uint64, k)
	for j := range k {
		wb[j] = bigrams(want[j])
	}
	best := nearest{n: min(len(want), len(file)), score: -1}
	for i := range file {
		sum := 0.0
		for j := 0; j < k && i+j < len(file); j++ {
			sum += dice(fb[i+j], wb[j])
		}
		if s := sum / float64(k); s > best.score {
			best.start, best.score = i, s
		}
	}
	best.n = min(len(want), len(file)-best.start)
	return best
}

// bigrams is the sorted character bigrams of s with white space collapsed.
// A string of one character is its own bigram.
func bigrams(s string) []uint64 {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) == 1 {
		return []uint64{uint64(r[0])<<32 | 0xFFFFFFFF}
	}
	out := make([]uint64, 0, max(len(r)-1, 0))
	for i := 0; i+1 < len(r); i++ {
		out = append(out, uint64(r[i])<<32|uint64(r[i+1]))
	}
	slices.Sort(out)
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
