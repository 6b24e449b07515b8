package window

import (
	"regexp"
	"strings"
)

// ErrorPattern matches the lines of a failing build or test that the model
// needs: compiler diagnostics (file:line: or file:line:col:), errors,
// failures, panics, exceptions, assertion messages with expected and
// actual values (got/want in Go), and Python tracebacks. It is case-insensitive and
// matches whole words, so "errors: 0" matches but "terrorist" does not.
var ErrorPattern = regexp.MustCompile(`(?i)` +
	`\berror\b|\berrors\b|error:|\bfail|\bpanic\b|\bexception\b|traceback|` +
	`\bexpected\b|\bactual\b|\bwant\b|\bassert|\bundefined\b|cannot find|not found|` +
	`^\s*\S+\.\w+:\d+(:\d+)?:|^\s*File ".*", line \d+`)

// ErrorFilter cuts the output of a failed command to its error lines,
// with context, before any other policy: the rule is to keep
//
//   - the first Head lines (what ran: the module, the package),
//   - every line that Pattern matches, with Context lines before and after,
//   - the last Tail lines (the verdict: BUILD FAILURE, FAIL pkg, exit
//     status),
//
// and to replace each run of other lines with "[N lines cut]". The zero
// value is the default rule.
type ErrorFilter struct {
	// Pattern matches an error line; nil means ErrorPattern.
	Pattern *regexp.Regexp
	// Context is the number of lines kept on each side of an error line;
	// 0 means 2, negative means none.
	Context int
	// Head is the number of first lines kept; 0 means 1.
	Head int
	// Tail is the number of last lines kept; 0 means 3.
	Tail int
}

// Apply cuts s to its error lines. found is false when no line matches,
// and s is then returned whole.
func (f ErrorFilter) Apply(s string) (cut string, found bool) {
	lines, nl := splitLines(s)
	keep := make([]bool, len(lines))
	pattern := f.Pattern
	if pattern == nil {
		pattern = ErrorPattern
	}
	ctx := orDefault(f.Context, 2)
	if ctx < 0 {
		ctx = 0
	}
	for i, l := range lines {
		if !pattern.MatchString(l) {
			continue
		}
		found = true
		for j := max(0, i-ctx); j <= min(len(lines)-1, i+ctx); j++ {
			keep[j] = true
		}
	}
	if !found {
		return s, false
	}
	for i := range min(orDefault(f.Head, 1), len(lines)) {
		keep[i] = true
	}
	for i := max(0, len(lines)-orDefault(f.Tail, 3)); i < len(lines); i++ {
		keep[i] = true
	}
	return joinMarked(lines, keep) + nl, true
}

// joinMarked joins the kept lines, a marker for each run of cut ones.
func joinMarked(lines []string, keep []bool) string {
	var out []string
	cut := 0
	for i, l := range lines {
		if !keep[i] {
			cut++
			continue
		}
		if cut > 0 {
			out = append(out, lineMarker(cut))
			cut = 0
		}
		out = append(out, l)
	}
	if cut > 0 {
		out = append(out, lineMarker(cut))
	}
	return strings.Join(out, "\n")
}
