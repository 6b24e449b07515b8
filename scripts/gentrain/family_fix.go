package main

import (
	"math/rand/v2"

	"github.com/loopagent/loop/agent/loop"
)

// fixTask is the bug-fix family: a function of a small Go package has an
// off-by-one or a wrong operator, and its test fails. A task that names
// the file is read, edited, tested and answered; a task that only says the
// tests fail starts with the tests, whose failure names the function.
func fixTask(r *rand.Rand, e env) Task {
	return fixIn(r, e, newPackage(r, 2, e))
}

// copyFixTask is the drill of edits that copy: fixTask on a ladder only,
// so that every chat fixes one by an edit of the whole function whose
// new_string is its old_string with one operator changed in every case.
// It is not among the default families (drills).
func copyFixTask(r *rand.Rand, e env) Task {
	return fixIn(r, e, newPackageOf(r, 2, e, pick(r, []int{ladderLevel, ladderFee})))
}

// fixIn is the fix family's task on package p, whose first function has
// the bug.
func fixIn(r *rand.Rand, e env, p goPackage) Task {
	b, path := p.bug(), p.source()
	show, decl := showFunc(e, path, p.content(path), b.fn)
	edit := editFile(path, b.bad, b.good)
	answer := pick(r, []string{
		"Fixed " + b.fn + " in " + path + ": " + b.fixed + ". The tests pass.",
		b.fn + " " + b.symptom + ": " + b.fixed + ". " + b.testName + " passes now.",
	})
	t := Task{Files: p.files(), Want: loop.Verified, Check: goTest}
	if r.IntN(3) > 0 {
		t.Text = pick(r, []string{
			b.testName + " fails. Fix " + b.fn + " in " + path + ".",
			b.fn + " in " + path + " " + b.symptom + ". Fix it.",
			"Fix the " + b.kind + " bug in " + b.fn + " in " + path + ".",
			"The test of " + b.fn + " fails. Fix the bug in " + path + " and run the tests.",
		})
		t.Replies = append(show, edit, shell(goTest), answer)
		t.FirstTool = toolOf(show[0])
		t.Grounds = []string{decl, firstLine(b.bad)}
		t.Variant = "named"
		return t
	}
	t.Text = pick(r, []string{
		"The tests fail. Find the bug and fix it.",
		"go test fails in this package; fix it.",
		"Make the tests pass.",
	})
	t.Replies = append(append([]string{shell(goTest)}, show...), edit, shell(goTest), answer)
	t.FirstTool = "shell"
	t.Grounds = []string{"--- FAIL: " + b.testName, b.failure, firstLine(b.bad)}
	t.Variant = "tests"
	return t
}

// failingTask is the family that runs the tests and reports the failing
// one, with what it printed, and changes nothing.
func failingTask(r *rand.Rand, e env) Task {
	p := newPackage(r, 3, e)
	b := p.bug()
	return Task{
		Files: p.files(),
		Text: pick(r, []string{
			"Run the tests and tell me which one fails.",
			"Which test fails in this package?",
			"Run go test and report the failing test.",
			"Some test fails here. Which one, and why?",
		}),
		Replies: []string{shell(goTest), pick(r, []string{
			b.testName + " fails: " + b.failure + ".",
			b.testName + " fails. It reports " + b.failure + ", so " + b.fn + " " + b.symptom + ".",
		})},
		Want:      loop.Done,
		Answer:    `\b` + b.testName + `\b`,
		FirstTool: "shell",
		Grounds:   []string{"--- FAIL: " + b.testName, b.failure},
	}
}
