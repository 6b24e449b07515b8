package tools

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/confined"
)

// The package check. Go builds a directory as one package: every file
// that the build takes (go/build.Context.MatchFile: its name, GOOS and
// GOARCH suffix and build constraints) says the same package clause, and
// a test file may say that name or the name plus "_test" (in a directory
// of tests only, their clauses less "_test" name the package). Within one
// package a package-level name is declared once. A write that breaks
// either rule breaks `go build` and `go test` for the whole directory
// ("found packages a (x.go) and b (y.go)", "X redeclared in this
// block"), and every later test run reports that instead of the task's
// failure, so edit_file and write_file refuse such a write the way they
// refuse one that does not parse, naming the package or the file that
// already declares the name. Only what the write introduces is refused:
// a file whose text before already broke the rule may be written, so
// that mending a broken directory is never blocked. Directories the go
// command ignores (testdata, and names starting with "_" or ".") are not
// checked.
//
// The check reads the other Go files of the directory beneath the root
// (regular files only, at most pkgMaxFiles of them, each at most
// pkgMaxBytes and pkgMaxTotal in all; larger files and further files are
// left out), so a directory it cannot read whole is checked against what
// it read.

// pkgMaxFiles, pkgMaxBytes and pkgMaxTotal bound what the package check
// reads of a directory: its first .go files by name (those the build
// leaves out count too), each up to a size, and up to a total.
const (
	pkgMaxFiles = 256
	pkgMaxBytes = 1 << 20
	pkgMaxTotal = 16 << 20
)

// goFile is what the package check needs of one Go file.
type goFile struct {
	name  string   // base name
	pkg   string   // package clause
	test  bool     // a _test.go file
	decls []string // package-level names: "F", "T", and "T.M" for a method
	file  *ast.File
}

// parseGoFile reads the package clause and package-level names of text
// into fset; ok is false for text that does not parse.
func parseGoFile(fset *token.FileSet, name, text string) (goFile, bool) {
	f, err := parser.ParseFile(fset, name, text, parser.SkipObjectResolution)
	if err != nil {
		return goFile{}, false
	}
	g := goFile{name: path.Base(name), pkg: f.Name.Name, test: strings.HasSuffix(name, "_test.go"), file: f}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			switch {
			case d.Recv != nil && len(d.Recv.List) == 1:
				if t := receiverType(d.Recv.List[0].Type); t != "" && d.Name.Name != "_" {
					g.decls = append(g.decls, t+"."+d.Name.Name)
				}
			case d.Recv == nil && d.Name.Name != "init" && d.Name.Name != "_":
				g.decls = append(g.decls, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					g.decls = append(g.decls, s.Name.Name)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.Name != "_" {
							g.decls = append(g.decls, n.Name)
						}
					}
				}
			}
		}
	}
	return g, true
}

// receiverType names a method's receiver type: T for T, *T, T[K] and
// *T[K, V]; "" for anything else.
func receiverType(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.Ident:
			return t.Name
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		default:
			return ""
		}
	}
}

// pkgProblems is what a file's text would break in its directory: the
// package the directory's other files say when the file says another
// (wantPkg, "" when it agrees or the directory does not tell), and the
// names it declares that another file of its package already declares,
// with that file, or that it declares twice itself.
type pkgProblems struct {
	wantPkg string
	others  []string // the directory's non-test files that say wantPkg, or its tests where it has only tests
	clashes []clash
}

type clash struct{ name, file string }

// pkgDir reads the directory of the file rel beneath r for the check, each
// file once, with text as rel's.
type pkgDir struct {
	r         *os.Root
	rel, text string
	files     map[string][]byte
	total     int           // bytes read
	ctxt      build.Context // go/build's default (this machine's GOOS, GOARCH, tags), reading through read
	fset      *token.FileSet
	partial   bool // siblings left out a file the build may take: unreadable, too large, past the bounds or not parsing
}

func newPkgDir(r *os.Root, rel, text string) *pkgDir {
	d := &pkgDir{r: r, rel: rel, text: text, files: map[string][]byte{}, ctxt: build.Default, fset: token.NewFileSet()}
	d.ctxt.JoinPath = path.Join
	d.ctxt.OpenFile = func(p string) (io.ReadCloser, error) {
		data, err := d.read(p)
		return io.NopCloser(bytes.NewReader(data)), err
	}
	return d
}

// read returns the text of the file p: rel's text, or at most
// pkgMaxBytes read beneath the root.
func (d *pkgDir) read(p string) ([]byte, error) {
	if p = path.Clean(p); p == d.rel {
		return []byte(d.text), nil
	}
	if data, ok := d.files[p]; ok {
		return data, nil
	}
	data, err := confined.ReadFileIn(d.r, p, pkgMaxBytes)
	if err != nil {
		return nil, err
	}
	d.total += len(data)
	d.files[p] = data
	return data, nil
}

// builds reports whether this machine's build takes the file p.
func (d *pkgDir) builds(p string) bool {
	ok, err := d.ctxt.MatchFile(path.Dir(p), path.Base(p))
	return err == nil && ok
}

// siblings reads the Go files beside rel that the build takes, without
// rel itself: the check's view of the directory.
func (d *pkgDir) siblings() []goFile {
	dir := path.Dir(d.rel)
	f, err := d.r.Open(dir)
	if err != nil {
		d.partial = true
		return nil
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		d.partial = true
		return nil
	}
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	var files []goFile
	seen := 0
	for _, e := range entries {
		name := path.Join(dir, e.Name())
		if !strings.HasSuffix(name, ".go") || name == d.rel {
			continue
		}
		if !e.Type().IsRegular() {
			d.partial = true
			continue
		}
		if seen++; seen > pkgMaxFiles || d.total >= pkgMaxTotal {
			d.partial = true
			break
		}
		if !d.builds(name) {
			continue
		}
		data, err := d.read(name)
		if err != nil {
			d.partial = true
			continue
		}
		if g, ok := parseGoFile(d.fset, name, string(data)); ok {
			files = append(files, g)
		} else {
			d.partial = true
		}
	}
	return files
}

// problemsOf checks the file g against its directory's other files.
func problemsOf(g goFile, others []goFile) pkgProblems {
	var p pkgProblems
	pkgs := map[string][]string{}
	for _, o := range others {
		if !o.test {
			pkgs[o.pkg] = append(pkgs[o.pkg], o.name)
		}
	}
	if len(pkgs) == 0 { // only tests: their clauses, less "_test", name the package
		for _, o := range others {
			name := strings.TrimSuffix(o.pkg, "_test")
			pkgs[name] = append(pkgs[name], o.name)
		}
	}
	if len(pkgs) == 1 { // a directory that already mixes packages does not tell
		for want, names := range pkgs {
			if g.pkg != want && (!g.test || g.pkg != want+"_test") {
				p.wantPkg, p.others = want, names
			}
		}
	}
	declared := map[string]string{}
	for _, o := range others {
		if o.pkg != g.pkg {
			continue
		}
		for _, n := range o.decls {
			if _, ok := declared[n]; !ok {
				declared[n] = o.name
			}
		}
	}
	for _, n := range g.decls {
		f, ok := declared[n]
		if !ok {
			declared[n] = g.name
			continue
		}
		if !slices.ContainsFunc(p.clashes, func(c clash) bool { return c.name == n }) {
			p.clashes = append(p.clashes, clash{n, f})
		}
	}
	return p
}

// refusePackage returns the refusal of writing text over rel when that
// breaks the package rules above or the names check (gonames.go), and
// false when the write may go ahead.
// prior gives the file's text before (hadFile false for a new file).
// Config.NoSyntaxCheck allows every write.
func (w *Workspace) refusePackage(tool, rel, text string, prior func() (before string, hadFile, ok bool)) (Result, bool) {
	if w.cfg.NoSyntaxCheck || !strings.HasSuffix(rel, ".go") || ignoredDir(path.Dir(rel)) {
		return Result{}, false
	}
	r, err := w.openRoot()
	if err != nil {
		return Result{}, false
	}
	defer r.Close()
	d := newPkgDir(r, rel, text)
	g, ok := parseGoFile(d.fset, rel, text)
	if !ok {
		return Result{}, false
	}
	if !d.builds(rel) {
		return Result{}, false // a file this build leaves out
	}
	others := d.siblings()
	p := problemsOf(g, others)
	before, hadFile, ok := prior()
	if !ok {
		return Result{}, false
	}
	var was *goFile // rel's text before, where it parses
	if hadFile {
		if b, ok := parseGoFile(d.fset, rel, before); ok {
			was = &b
			old := problemsOf(b, others)
			if old.wantPkg != "" {
				p.wantPkg = ""
			}
			p.clashes = slices.DeleteFunc(p.clashes, func(c clash) bool {
				return slices.ContainsFunc(old.clashes, func(o clash) bool { return o.name == c.name })
			})
		}
	}
	if p.wantPkg != "" || len(p.clashes) > 0 {
		return p.refusal(tool, rel, g, hadFile), true
	}
	if hadFile && was == nil {
		return Result{}, false // mending a file that did not parse
	}
	return d.refuseUndefined(tool, rel, g, was, others)
}

// refusal is the result that refuses writing g over rel for the problems
// p, saying what to send instead; hadFile says whether rel existed.
func (p pkgProblems) refusal(tool, rel string, g goFile, hadFile bool) Result {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: not written: ", tool)
	if p.wantPkg != "" {
		test := ""
		if g.test {
			test = fmt.Sprintf(" (or package %s_test, for a test of it from outside)", p.wantPkg)
		}
		fmt.Fprintf(&b, "%s would say package %s, but the Go files beside it (%s) are package %s, and a directory holds one package, so go build would fail. ",
			rel, g.pkg, listNames(p.others, 3), p.wantPkg)
		fmt.Fprintf(&b, "%s %s; send it again with package %s%s.", rel, unchanged(hadFile), p.wantPkg, test)
		return Result{Content: b.String(), IsError: true}
	}
	var names []string
	for _, c := range p.clashes {
		name := c.name
		if strings.Contains(name, ".") {
			name = "method " + name
		}
		if c.file == g.name {
			names = append(names, fmt.Sprintf("%s (twice in %s)", name, c.file))
		} else {
			names = append(names, fmt.Sprintf("%s (in %s)", name, c.file))
		}
	}
	fmt.Fprintf(&b, "%s would declare names its package already has: %s; go build would fail (redeclared in this block). ", rel, listNames(names, 4))
	fmt.Fprintf(&b, "%s %s; use a new name, or change the declaration where it is.", rel, unchanged(hadFile))
	return Result{Content: b.String(), IsError: true}
}

// ignoredDir reports whether the go command leaves the directory dir out
// of every package pattern: a testdata directory, or one whose name
// starts with "_" or ".", or one beneath them. Their files need not agree.
func ignoredDir(dir string) bool {
	for _, e := range strings.Split(dir, "/") {
		if e == "testdata" || strings.HasPrefix(e, "_") || (strings.HasPrefix(e, ".") && e != ".") {
			return true
		}
	}
	return false
}

// unchanged says what became of the file a refusal did not write.
func unchanged(hadFile bool) string {
	if hadFile {
		return "is unchanged"
	}
	return "was not created"
}

// listNames joins names with commas, the first n of them and how many
// more.
func listNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}
