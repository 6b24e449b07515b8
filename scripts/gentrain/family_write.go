package main

import (
	"math/rand/v2"
	"path"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/loop"
)

// addFuncTask adds the function a failing test calls: go test fails to
// build (undefined: F), the test shows what F must return, and F is
// written in a new file or added after the last function of the source
// file, whose lines the edit copies.
func addFuncTask(r *rand.Rand, e env) Task {
	p := emptyPackage(r, e)
	for _, k := range r.Perm(len(bugMakers)) {
		if bugMakers[k].small && len(p.funcs) < 2 {
			p.funcs = append(p.funcs, bugMakers[k].make(r, e))
		}
	}
	p.addFillers(r, e)
	var f bug
	for _, k := range r.Perm(len(fillerMakers)) {
		if f = fillerMakers[k](r); !slices.ContainsFunc(p.funcs, func(b bug) bool { return b.fn == f.fn }) {
			break
		}
	}
	p.funcs = append(p.funcs, f)
	p.broken = []int{len(p.funcs) - 1}
	p.shuffle(r)
	p.place(r, e)
	k := p.broken[0]
	p.broken = nil
	p.missing = map[int]bool{k: true}
	testPath := p.pathOf(testFile(p.home[k]))
	showTest, _ := showFunc(e, testPath, p.content(testPath), f.testName)
	added := gofmt("package " + p.name + "\n\n" + f.src + "\n")
	t := Task{
		Text: pick(r, []string{
			"go test fails to build. Add the function the tests call.",
			"The tests call " + f.fn + ", which does not exist yet. Add it.",
			"Make the tests pass: " + f.testName + " needs " + f.fn + ".",
		}),
		Want: loop.Verified, Check: goTest, FirstTool: "shell",
		Grounds: []string{"undefined: " + f.fn, "func " + f.testName},
	}
	t.Files = p.files()
	replies := append([]string{shell(goTest)}, showTest...)
	// Beside another function: after the last one of a source file of its
	// own package that is left.
	host := -1
	for i := range p.funcs {
		if i != k && !e.shape.split {
			host = i
		}
	}
	if host >= 0 && r.IntN(2) == 0 && e.fitsRead(p.content(p.sourceOf(host))) {
		file := p.sourceOf(host)
		src := p.content(file)
		last := lastFunc(src)
		first, end := funcLines(src, last)
		old := strings.Join(strings.Split(src, "\n")[first-1:end], "\n")
		show, _ := showFunc(e, file, src, last)
		replies = append(append(replies, show...), editFile(file, old, old+"\n\n"+f.src))
		t.Replies = append(replies, shell(goTest), "Added "+f.fn+" to "+file+", after "+last+". "+f.testName+" passes, and so do the other tests.")
		t.Variant = "edit"
		return t
	}
	file := p.pathOf(snake(f.fn) + ".go")
	t.Replies = append(replies, writeFile(file, added), shell(goTest), "Added "+f.fn+" in a new file, "+file+". The tests pass.")
	t.Variant = "write"
	return t
}

// lastFunc is the name of the last function of Go source.
func lastFunc(src string) string {
	name := ""
	for _, l := range strings.Split(src, "\n") {
		if rest, ok := strings.CutPrefix(l, "func "); ok {
			name, _, _ = strings.Cut(rest, "(")
		}
	}
	return name
}

// newTestTask writes a test for a function that has none: the function
// is read, a new _test.go file is written with write_file, and go test
// runs it.
func newTestTask(r *rand.Rand, e env) Task {
	p := newPackage(r, 2, e)
	// The function with a bug is fixed in this family's workspace: the new
	// test must pass.
	p.broken = nil
	k := r.IntN(len(p.funcs))
	f := p.funcs[k]
	p.noTest[k] = true
	file := p.sourceOf(k)
	show, decl := showFunc(e, file, p.content(file), f.fn)
	testPath := p.pathOf(snake(f.fn) + "_test.go")
	content := goFile(p.name, "testing", []string{f.test})
	return Task{
		Files: p.files(),
		Text: pick(r, []string{
			"Write a test for " + f.fn + " in " + testPath + ".",
			f.fn + " (in " + file + ") has no test. Add one.",
			"Add a unit test for " + f.fn + ".",
		}),
		Replies: append(show, writeFile(testPath, content), shell(goTest),
			"Wrote "+f.testName+" in "+testPath+": it checks one call of "+f.fn+". The tests pass."),
		Want: loop.Verified, Check: goTest, FirstTool: toolOf(show[0]),
		// The tests pass before the new one too: the pass condition
		// also wants a test file of the package that calls the function.
		PassCheck: goTest + " && grep -qE '(^|[^A-Za-z0-9_])" + f.fn + "[(]' " + path.Dir(testPath) + "/*_test.go",
		Grounds:   []string{decl, "ok  \t"},
		Variant:   toolOf(show[0]),
	}
}
