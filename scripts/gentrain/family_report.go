package main

import (
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/loopagent/loop/agent/loop"
)

// reportTask is the family that reports without editing: a question about
// the code (why a test fails, where a function is defined), answered from
// what the tools showed. A question is offered no tool that writes files,
// and its chat shows the tools it was offered.
func reportTask(r *rand.Rand, e env) Task {
	p := newPackage(r, 2, e)
	if r.IntN(3) == 0 {
		return whereTask(r, p)
	}
	b, file := p.bug(), p.source()
	src := p.content(file)
	show, decl := showFunc(e, file, src, b.fn)
	badLine, goodLine := differing(b.bad, b.good)
	n := lineNumber(src, badLine)
	answer := pick(r, []string{
		b.testName + " fails because " + b.fn + " " + b.symptom + ": line " + itoa(n) + " of " + file + " reads `" + badLine + "`, and it should read `" + goodLine + "`.",
		"Line " + itoa(n) + " of " + file + ", `" + badLine + "`: " + b.fn + " " + b.symptom + ", so " + b.testName + " reports " + b.failure + ". It should be `" + goodLine + "`.",
	})
	return Task{
		Files: p.files(),
		Text: pick(r, []string{
			"Why does " + b.testName + " fail?",
			"What is wrong with " + b.fn + " in " + file + "?",
			"Which line of " + file + " breaks " + b.testName + "?",
			"Why do the tests fail?",
		}),
		Replies: append(append([]string{shell(goTest)}, show...), answer),
		Want:    loop.Done, FirstTool: "shell", Answer: regexp.QuoteMeta(badLine),
		Grounds: []string{"--- FAIL: " + b.testName, decl, badLine},
		Variant: "why",
	}
}

// whereTask asks where a function is defined: grep answers it.
func whereTask(r *rand.Rand, p goPackage) Task {
	i := r.IntN(len(p.funcs))
	f, file := p.funcs[i], p.sourceOf(i)
	n := lineNumber(p.content(file), "func "+f.fn+"(")
	return Task{
		Files: p.files(),
		Text: pick(r, []string{
			"Where is " + f.fn + " defined?",
			"Which file defines " + f.fn + "?",
			"Where is the function " + f.fn + "?",
		}),
		Replies: []string{grep(`func ` + f.fn + `\(`), f.fn + " is defined in " + file + ", line " + itoa(n) + "."},
		Want:    loop.Done, FirstTool: "grep", Answer: regexp.QuoteMeta(file),
		Grounds: []string{file + ":" + itoa(n) + ": func " + f.fn + "("},
		Variant: "where",
	}
}

// differing returns the first line that differs between two versions of
// code, each without indentation.
func differing(a, b string) (string, string) {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return strings.TrimSpace(al[i]), strings.TrimSpace(bl[i])
		}
	}
	panic("gentrain: no line differs")
}

// lineNumber is the number (from 1) of the first line of src that holds s.
func lineNumber(src, s string) int {
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	panic("gentrain: no line holds " + s)
}
