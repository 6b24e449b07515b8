package main

import (
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"unicode"
)

// goPackage is a small Go module in a workspace shape: a go.mod, source
// files of functions, some with a bug, a test for each function, and the
// shape's other files.
type goPackage struct {
	name    string // the package name
	module  string // the module path
	dir     string // the package's directory ("" for the module root)
	funcs   []bug
	broken  []int    // the functions whose bug is in the source
	home    []string // each function's source file, relative to dir
	extras  []File
	noTest  map[int]bool // functions without a test
	missing map[int]bool // functions whose source is not written (their tests are)
	strip   bool         // no doc comments
}

// newPackage draws a package of n functions in shape e.shape: one with a
// bug, of any kind, n-1 one-line functions without, and up to the shape's
// fillers, in a random order.
func newPackage(r *rand.Rand, n int, e env) goPackage {
	p := emptyPackage(r, e)
	return p.withBug(r, n, e, r.IntN(len(bugMakers)))
}

// newPackageOf is newPackage whose function with a bug is made by
// bugMakers[first].
func newPackageOf(r *rand.Rand, n int, e env, first int) goPackage {
	p := emptyPackage(r, e)
	return p.withBug(r, n, e, first)
}

// withBug adds the function of bugMakers[first] with its bug, then up to
// n-1 one-line functions without and the shape's fillers, and places
// them in a random order.
func (p goPackage) withBug(r *rand.Rand, n int, e env, first int) goPackage {
	p.funcs = append(p.funcs, bugMakers[first].make(r, e))
	for _, k := range r.Perm(len(bugMakers)) {
		if len(p.funcs) < n && k != first && bugMakers[k].small {
			p.funcs = append(p.funcs, bugMakers[k].make(r, e))
		}
	}
	p.broken = []int{0}
	p.addFillers(r, e)
	p.shuffle(r)
	p.place(r, e)
	return p
}

// emptyPackage is a package of shape e.shape with no function yet.
func emptyPackage(r *rand.Rand, e env) goPackage {
	name := pick(r, packages)
	s := e.shape
	p := goPackage{name: name, module: s.module(r, name), dir: s.dir(name), strip: !s.comments, noTest: map[int]bool{}}
	if s.extras != nil {
		p.extras = s.extras(r, p.module, name)
	}
	return p
}

// addFillers adds up to the shape's number of fillers.
func (p *goPackage) addFillers(r *rand.Rand, e env) {
	if e.shape.fillers == 0 {
		return
	}
	n := between(r, e.shape.fillers/2, e.shape.fillers)
	for _, k := range r.Perm(len(fillerMakers)) {
		if n == 0 {
			break
		}
		f := fillerMakers[k](r)
		if !slices.ContainsFunc(p.funcs, func(b bug) bool { return b.fn == f.fn }) {
			p.funcs = append(p.funcs, f)
			n--
		}
	}
}

// shuffle puts the functions in a random order, keeping broken in step.
func (p *goPackage) shuffle(r *rand.Rand) {
	names := make([]string, len(p.broken))
	for i, k := range p.broken {
		names[i] = p.funcs[k].fn
	}
	r.Shuffle(len(p.funcs), func(i, j int) { p.funcs[i], p.funcs[j] = p.funcs[j], p.funcs[i] })
	for i, n := range names {
		p.broken[i] = slices.IndexFunc(p.funcs, func(b bug) bool { return b.fn == n })
	}
}

// place gives each function its file: its own in a split shape, else the
// shape's one file.
func (p *goPackage) place(r *rand.Rand, e env) {
	p.home = make([]string, len(p.funcs))
	file := ""
	if !e.shape.split {
		file = e.shape.file(r, p.name)
	}
	for i, b := range p.funcs {
		if e.shape.split {
			p.home[i] = snake(b.fn) + ".go"
		} else {
			p.home[i] = file
		}
	}
}

// bug is the (first) function with a bug.
func (p goPackage) bug() bug { return p.funcs[p.broken[0]] }

// pathOf is the workspace path of a file of the package.
func (p goPackage) pathOf(file string) string { return path.Join(p.dir, file) }

// source is the path of the file of the first function with a bug.
func (p goPackage) source() string { return p.pathOf(p.home[p.broken[0]]) }

// sourceOf is the path of the file of function i.
func (p goPackage) sourceOf(i int) string { return p.pathOf(p.home[i]) }

// testFile is the test file of a source file.
func testFile(file string) string { return strings.TrimSuffix(file, ".go") + "_test.go" }

// files are the package's files, with the bugs.
func (p goPackage) files() []File {
	var order []string
	src, tests := map[string][]string{}, map[string][]string{}
	for i, b := range p.funcs {
		h := p.home[i]
		if !slices.Contains(order, h) {
			order = append(order, h)
		}
		if !p.noTest[i] {
			tests[h] = append(tests[h], b.test)
		}
		if p.missing[i] {
			continue
		}
		s := b.source(slices.Contains(p.broken, i))
		if p.strip {
			s = stripComments(s)
		}
		src[h] = append(src[h], s)
	}
	out := []File{{"go.mod", "module " + p.module + "\n\ngo 1.22\n"}}
	out = append(out, p.extras...)
	for _, h := range order {
		if len(src[h]) > 0 {
			out = append(out, File{p.pathOf(h), goFile(p.name, "", src[h])})
		}
	}
	for _, h := range order {
		if len(tests[h]) > 0 {
			out = append(out, File{p.pathOf(testFile(h)), goFile(p.name, "testing", tests[h])})
		}
	}
	return out
}

// goFile is a Go file of package name, importing imp ("" for none), with
// the declarations decls, as gofmt writes it.
func goFile(name, imp string, decls []string) string {
	head := "package " + name + "\n\n"
	if imp != "" {
		head += "import \"" + imp + "\"\n\n"
	}
	return gofmt(head + strings.Join(decls, "\n\n") + "\n")
}

// content is the content of the package's file at path p.
func (p goPackage) content(file string) string {
	for _, f := range p.files() {
		if f.Path == file {
			return f.Content
		}
	}
	panic("gentrain: no file " + file)
}

// stripComments drops the whole-line comments of Go source.
func stripComments(src string) string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// snake is an identifier as a file name: CountAbove is count_above.
func snake(id string) string {
	var b strings.Builder
	for i, c := range id {
		if unicode.IsUpper(c) {
			if i > 0 {
				b.WriteByte('_')
			}
			c = unicode.ToLower(c)
		}
		b.WriteRune(c)
	}
	return b.String()
}

// funcLines returns the lines [first, last] (from 1) of function fn in
// src, its doc comment included.
func funcLines(src, fn string) (first, last int) {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "func "+fn+"(") {
			continue
		}
		first = i
		for first > 0 && strings.HasPrefix(lines[first-1], "//") {
			first--
		}
		for j := i; j < len(lines); j++ {
			if lines[j] == "}" {
				return first + 1, j + 1
			}
		}
	}
	panic(fmt.Sprintf("gentrain: no function %s in\n%s", fn, src))
}

// showFunc returns the calls that show function fn of file, whose
// content is src: one read_file of the whole file when it fits one read
// at the window, else grep for the function and a read_file of its lines.
// line is the function's declaration, as a tool result then shows it.
func showFunc(e env, file, src, fn string) (calls []string, line string) {
	first, last := funcLines(src, fn)
	decl := lineWith(src, "func "+fn+"(")
	if e.fitsRead(src) {
		return []string{readFile(file)}, decl
	}
	return []string{grep(`func ` + fn + `\(`), readRange(file, first, last-first+1)}, decl
}
