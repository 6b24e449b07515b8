package tools

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"strings"
)

// skipDirs are the directories grep and list_files do not enter unless
// the path or pattern starts inside them: version control and dependency
// caches, large and never what a task is about.
var skipDirs = []string{".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv"}

// skipDir reports whether a walk skips the directory named name.
func skipDir(name string) bool { return slices.Contains(skipDirs, name) }

// sniffLen is how much of a file the binary check reads.
const sniffLen = 8 << 10

// isBinary reports whether the start of a file looks binary: it has a NUL
// byte, as git and grep decide.
func isBinary(head []byte) bool {
	return bytes.IndexByte(head[:min(len(head), sniffLen)], 0) >= 0
}

// hasMeta reports whether a glob segment has a wildcard.
func hasMeta(seg string) bool { return strings.ContainsAny(seg, `*?[\`) }

// matchGlob reports whether the slash-separated name matches pattern:
// path.Match per segment, and a segment "**" matching any number of
// segments, none included. It runs in time proportional to the product of
// the segment counts, whatever the number of "**".
func matchGlob(pattern, name string) bool {
	ps := strings.Split(pattern, "/")
	ns := strings.Split(name, "/")
	// next[j] is whether ps[i+1:] matches ns[j:]; cur the same for ps[i:].
	next := make([]bool, len(ns)+1)
	next[len(ns)] = true
	cur := make([]bool, len(ns)+1)
	for i := len(ps) - 1; i >= 0; i-- {
		if ps[i] == "**" {
			cur[len(ns)] = next[len(ns)]
			for j := len(ns) - 1; j >= 0; j-- {
				cur[j] = next[j] || cur[j+1]
			}
		} else {
			cur[len(ns)] = false
			for j := len(ns) - 1; j >= 0; j-- {
				ok, err := path.Match(ps[i], ns[j])
				cur[j] = err == nil && ok && next[j+1]
			}
		}
		next, cur = cur, next
	}
	return next[0]
}

// validGlob reports whether every segment of pattern is well formed.
func validGlob(pattern string) bool {
	for seg := range strings.SplitSeq(pattern, "/") {
		if _, err := path.Match(seg, ""); err != nil {
			return false
		}
	}
	return true
}

// maxUnreadable is how many unreadable directories a result names.
const maxUnreadable = 5

// unreadable collects the directories a walk could not read, for a note
// at the end of the result: a directory left out in silence reads as
// empty, and the model would answer from that.
type unreadable struct {
	names []string // "src: permission denied", the first maxUnreadable
	n     int
}

// add records that the directory name could not be read.
func (u *unreadable) add(name string, err error) {
	u.n++
	if len(u.names) < maxUnreadable {
		u.names = append(u.names, fmt.Sprintf("%s: %v", name, causeOf(err)))
	}
}

// note is one line per directory recorded, "tool: src: permission
// denied", each after sep; "" when there is none.
func (u *unreadable) note(tool, sep string) string {
	var b strings.Builder
	for _, s := range u.names {
		b.WriteString(sep + tool + ": " + s)
	}
	if more := u.n - len(u.names); more > 0 {
		fmt.Fprintf(&b, "%s[%d more directories could not be read]", sep, more)
	}
	return b.String()
}
