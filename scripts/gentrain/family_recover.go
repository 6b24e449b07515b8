package main

import (
	"math/rand/v2"
	"path"
	"strings"

	"github.com/loopagent/loop/agent/loop"
)

// recoverTask is the family of recoveries from a tool error: a file the
// user named is not where they said (read_file fails, list_files or grep
// finds it), or an edit written from the task alone does not match the
// file (edit_file fails, read_file shows the real line, the second edit
// fits).
func recoverTask(r *rand.Rand) Task {
	if r.IntN(2) == 0 {
		return missingFileTask(r)
	}
	return editMismatchTask(r)
}

func missingFileTask(r *rand.Rand) Task {
	dir := pick(r, subdirs)
	s := newSettings(r, path.Base(dir))
	name := pick(r, []string{"config.go", "settings.go", "limits.go", "defaults.go"})
	full := dir + "/" + name
	mod := pick(r, packages)
	q := s.question(r, name)
	q.a = strings.TrimSuffix(q.a, ".") + " (in " + full + ")."
	t := Task{
		Files: []File{{"go.mod", "module " + mod + "\n\ngo 1.22\n"}, {"main.go", "package main\n\nfunc main() {}\n"}, {full, s.source()}},
		Text:  q.q, Want: loop.Done, Answer: q.re, FirstTool: "read_file",
		Grounds: []string{name + ": no such file", q.line},
	}
	if q.constant != "" && r.IntN(3) == 0 {
		// grep shows the constant's line itself: no second read.
		t.Replies = []string{readFile(name), grep(q.constant), q.a}
		return t
	}
	t.Replies = []string{readFile(name), listFiles("**/" + name), readFile(full), q.a}
	return t
}

func editMismatchTask(r *rand.Rand) Task {
	p := newPackage(r, 2)
	b, file := p.bug(), p.source()
	return Task{
		Files: p.files(),
		Text: pick(r, []string{
			b.fn + " in " + file + " " + b.symptom + ". Fix it.",
			"Fix the " + b.kind + " bug in " + b.fn + " (" + file + ").",
		}),
		Replies: []string{
			editFile(file, b.guess, b.guessFix),
			readFile(file),
			editFile(file, b.bad, b.good),
			shell(goTest),
			"Fixed " + b.fn + " in " + file + ": " + b.fixed + ". The tests pass.",
		},
		Want: loop.Verified, Check: goTest, FirstTool: "edit_file",
		Grounds: []string{"old_string was not found in " + file, b.bad},
	}
}
