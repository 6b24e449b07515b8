package window

import (
	"strconv"
	"unicode/utf8"
)

// Policy names which part of an oversized tool result is kept.
type Policy int

const (
	// HeadTailLines keeps whole lines from both ends (TruncateLines): the
	// default for command output, whose first line names what ran and
	// whose last lines hold the verdict.
	HeadTailLines Policy = iota
	// HeadTail keeps characters from both ends (TruncateHeadTail).
	HeadTail
	// Head keeps the start (TruncateHead): the default for file reads and
	// searches, where the start matters and the model reads on with an
	// offset.
	Head
	// Tail keeps the end (TruncateTail).
	Tail
)

var policyNames = []string{"head+tail-lines", "head+tail", "head", "tail"}

func (p Policy) String() string {
	if p >= 0 && int(p) < len(policyNames) {
		return policyNames[p]
	}
	return "Policy(" + strconv.Itoa(int(p)) + ")"
}

// DefaultPolicy is the policy for a tool's results when the caller names
// none: Head for reads, searches and listings, HeadTailLines for the rest
// (commands above all).
func DefaultPolicy(tool string) Policy {
	switch tool {
	case "read_file", "read", "view", "cat", "grep", "glob", "ls", "list_dir", "find", "search":
		return Head
	}
	return HeadTailLines
}

// Caps cuts tool results when they enter the history, so that an
// oversized result never enters it. The zero value cuts nothing.
type Caps struct {
	// Chars is the largest result kept, in characters (Strategy.ToolCap);
	// 0 means no cap.
	Chars int
	// Policies chooses the policy by tool name; a tool not in it gets
	// DefaultPolicy.
	Policies map[string]Policy
	// Within makes Chars a bound on the whole result, the marker included:
	// the result is cut to exactly Chars characters where the policy
	// allows, for a cap that must hold on the history's size ("cut each
	// tool result to 1,200 characters"). By default the marker comes on
	// top of the Chars kept, so that Chars is what the model sees of the
	// tool's own output.
	Within bool
	// Errors cuts the output of a failed command to its error lines
	// before the policy applies (ErrorFilter).
	Errors ErrorFilter
}

// Apply caps one tool's result. failed says the command failed (a
// non-zero exit): its output, when over the cap, is first cut to its
// error lines with their context. Output within the cap passes whole.
func (c Caps) Apply(tool, content string, failed bool) string {
	if c.Chars <= 0 || utf8.RuneCountInString(content) <= c.Chars {
		return content
	}
	p, ok := c.Policies[tool]
	if !ok {
		p = DefaultPolicy(tool)
	}
	if failed {
		if cut, found := c.Errors.Apply(content); found {
			content, p = cut, HeadTailLines
			if utf8.RuneCountInString(content) <= c.Chars {
				return content
			}
		}
	}
	if c.Within {
		return truncateWithin(p, content, c.Chars)
	}
	return Truncate(p, content, c.Chars)
}

// Truncate cuts s to max characters with policy p; the marker comes on
// top.
func Truncate(p Policy, s string, max int) string {
	switch p {
	case HeadTail:
		return TruncateHeadTail(s, max)
	case Head:
		return TruncateHead(s, max)
	case Tail:
		return TruncateTail(s, max)
	}
	return TruncateLines(s, max)
}

// truncateWithin cuts s so that the result, marker included, is at most
// max characters: exactly max for the character policies.
func truncateWithin(p Policy, s string, max int) string {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s
	}
	if p == HeadTailLines {
		slack := utf8.RuneCountInString(lineMarker(n)) + 1
		if h, t, ok := fitLines(s, max, slack); ok {
			return joinKept(s, h, t)
		}
		p = HeadTail
	}
	// markerLen is the marker's length with its newlines.
	markerLen := func(cut int) int {
		l := utf8.RuneCountInString(charMarker(cut)) + 1
		if p == HeadTail {
			l++
		}
		return l
	}
	keep := max - markerLen(n-max)
	for range 4 { // the marker's digits settle in a step or two
		keep = max - markerLen(n-keep)
	}
	for keep > 0 && keep+markerLen(n-keep) > max {
		keep--
	}
	if keep <= 0 {
		return firstRunes(s, max)
	}
	if p == HeadTail {
		head := keep / 2
		return firstRunes(s, head) + "\n" + charMarker(n-keep) + "\n" + lastRunes(s, keep-head)
	}
	return Truncate(p, s, keep)
}
