package main

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/loop"
)

// twoFilesTask is a fix across two files: two functions, each in a file of
// its own, have a bug; go test names both failing tests, and each file is
// read and edited before the tests run again.
func twoFilesTask(r *rand.Rand, e env) Task {
	p := emptyPackage(r, e)
	// Two ladders would make the chat longer than a training window.
	ks := r.Perm(len(bugMakers))[:2]
	for slices.Contains(ks, ladderLevel) && slices.Contains(ks, ladderFee) {
		ks = r.Perm(len(bugMakers))[:2]
	}
	for _, k := range ks {
		p.funcs = append(p.funcs, bugMakers[k].make(r, e))
	}
	p.broken = []int{0, 1}
	p.addFillers(r, e)
	p.shuffle(r)
	p.place(r, e)
	// The second function with a bug moves to a file named after it.
	p.home[p.broken[1]] = snake(p.funcs[p.broken[1]].fn) + ".go"
	if p.home[p.broken[0]] == p.home[p.broken[1]] {
		p.home[p.broken[0]] = snake(p.funcs[p.broken[0]].fn) + ".go"
	}
	// go test reports the failures in the order of the test files' names.
	slices.SortFunc(p.broken, func(a, b int) int { return strings.Compare(testFile(p.home[a]), testFile(p.home[b])) })
	a, b := p.funcs[p.broken[0]], p.funcs[p.broken[1]]
	fa, fb := p.sourceOf(p.broken[0]), p.sourceOf(p.broken[1])
	showA, declA := showFunc(e, fa, p.content(fa), a.fn)
	showB, declB := showFunc(e, fb, p.content(fb), b.fn)
	replies := []string{shell(goTest)}
	replies = append(append(replies, showA...), editFile(fa, a.bad, a.good))
	replies = append(append(replies, showB...), editFile(fb, b.bad, b.good))
	replies = append(replies, shell(goTest), pick(r, []string{
		"Fixed two bugs. " + a.fn + " in " + fa + ": " + a.fixed + ". " + b.fn + " in " + fb + ": " + b.fixed + ". The tests pass.",
		a.testName + " and " + b.testName + " failed. In " + fa + ", " + a.fn + " " + a.symptom + "; in " + fb + ", " + b.fn + " " + b.symptom + ". Both are fixed and the tests pass.",
	}))
	return Task{
		Files: p.files(),
		Text: pick(r, []string{
			"The tests fail. Find the bugs and fix them.",
			a.testName + " and " + b.testName + " fail. Fix the code.",
			"Two tests fail in this module; fix both bugs.",
			"Make go test pass.",
		}),
		Replies: replies, Want: loop.Verified, Check: goTest, FirstTool: "shell",
		Grounds: []string{"--- FAIL: " + a.testName, "--- FAIL: " + b.testName, declA, declB},
	}
}

// renameTask renames a parameter through a function: the signature, the
// doc comment and every line that uses it change, so the edit spans the
// whole function, copied from the file just read with the new name. Two
// in three rename a ladder, 10 or more lines long.
func renameTask(r *rand.Rand, e env) Task {
	p := emptyPackage(r, e)
	var target bug
	if r.IntN(3) > 0 {
		target = pick(r, []func(*rand.Rand, env) bug{levelBug, feeBug})(r, e)
	} else {
		target = pick(r, []func(*rand.Rand, env) bug{sumBug, countBug, maxBug})(r, e)
	}
	p.funcs = []bug{target}
	for _, k := range r.Perm(len(bugMakers)) {
		if bugMakers[k].small && len(p.funcs) < 2 {
			p.funcs = append(p.funcs, bugMakers[k].make(r, e))
		}
	}
	p.addFillers(r, e)
	p.broken = []int{0}
	p.shuffle(r)
	p.place(r, e)
	i := p.broken[0]
	p.broken = nil // no bug: the tests pass before and after
	file := p.sourceOf(i)
	src := p.content(file)
	old, neu, lines := renamed(src, target.fn, target.param, newParam(r, e, target, src))
	show, decl := showFunc(e, file, src, target.fn)
	to := paramOf(neu, target.fn)
	return Task{
		Files: p.files(),
		Text: pick(r, []string{
			"Rename the parameter " + target.param + " of " + target.fn + " to " + to + ".",
			"In " + file + ", rename " + target.fn + "'s parameter " + target.param + " to " + to + ".",
			target.fn + "'s parameter should be called " + to + ", not " + target.param + ". Rename it in " + file + ".",
		}),
		Replies: append(show, editFile(file, old, neu), shell(goTest),
			"Renamed "+target.param+" to "+to+" in "+target.fn+" ("+file+"), "+itoa(lines)+" lines in all. The tests pass."),
		Want: loop.Verified, Check: goTest, PassCheck: renameCheck(file, target.fn, target.param, to),
		FirstTool: toolOf(show[0]),
		Grounds:   []string{decl},
		Variant:   map[bool]string{true: "copy", false: "short"}[strings.Contains(target.bad, "\n")],
	}
}

// newParam draws a new name for b's parameter that the source does not
// use.
func newParam(r *rand.Rand, e env, b bug, src string) string {
	if e.wide {
		for {
			if to := e.varName(r, nil); !regexp.MustCompile(`\b` + to + `\b`).MatchString(src) {
				return to
			}
		}
	}
	pool := []string{"score", "points", "total", "marks", "value", "amount", "weight", "cents", "size", "level", "qty"}
	if strings.Contains(b.src, "[]int") || strings.Contains(b.bad+b.good, "[]int") {
		pool = sliceVars
	}
	for _, k := range r.Perm(len(pool)) {
		if !regexp.MustCompile(`\b` + pool[k] + `\b`).MatchString(src) {
			return pool[k]
		}
	}
	panic("gentrain: no free parameter name for " + b.fn)
}

// renamed returns the lines of function fn in src (with its doc comment
// when that names the parameter), the same lines with param renamed to
// to, and how many lines changed.
func renamed(src, fn, param, to string) (old, neu string, changed int) {
	first, last := funcLines(src, fn)
	lines := strings.Split(src, "\n")[first-1 : last]
	word := regexp.MustCompile(`\b` + param + `\b`)
	if strings.HasPrefix(lines[0], "//") && !word.MatchString(lines[0]) {
		lines = lines[1:]
	}
	out := make([]string, len(lines))
	for k, l := range lines {
		out[k] = word.ReplaceAllString(l, to)
		if out[k] != l {
			changed++
		}
	}
	return strings.Join(lines, "\n"), strings.Join(out, "\n"), changed
}

// paramOf is the name of the first parameter of fn in its declaration.
func paramOf(src, fn string) string {
	decl := lineWith(src, "func "+fn+"(")
	rest := strings.TrimPrefix(decl, "func "+fn+"(")
	return strings.FieldsFunc(rest, func(c rune) bool { return c == ' ' || c == ',' || c == ')' })[0]
}

// renameCheck is a rename's pass condition: the tests pass, and function
// fn in file names to and no longer from (as a word; its doc comment
// aside). The tests pass before the rename too, so they alone show
// nothing.
func renameCheck(file, fn, from, to string) string {
	body := "sed -n '/^func " + fn + "(/,/^}/p' " + file
	return goTest + " && " + body + " | grep -qw " + to + " && ! " + body + " | grep -qw " + from
}
