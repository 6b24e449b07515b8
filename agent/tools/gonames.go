package tools

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"slices"
	"strings"
)

// The names check. A Go file may only use a name that is declared: in
// the file's scope, in its package, or in the language itself. A write
// that makes a file use a name declared nowhere ("undefined: limit")
// breaks `go build` and `go test` for the whole directory, so edit_file
// and write_file refuse it, naming the name, its line and the declared
// names nearest to it. Only what the write introduces is refused: a name
// the file already used undeclared before may stay, and a write that
// leaves another file using a name that is gone (a rename whose callers
// are changed next) goes ahead. A file may use a name that a later write
// is to declare only once it is declared, so the check's refusal says to
// declare it first.
//
// The check type-checks the package (go/types) from the files the
// package check read: the file's own package clause, and for a file that
// is not a test only the files that are not tests. Imports stand for
// empty packages, so what an imported package holds is not checked, and
// only names used unqualified count, not the X of X.Y. Where the check
// cannot see the whole package (a file beside it that it could not read
// or parse, a directory past its bounds, a dot import) it refuses
// nothing, nor where the directory holds more than namesMaxTotal bytes of
// Go, whose type-checking would cost each write seconds.

// namesMaxTotal is the most Go source, in bytes, the names check
// type-checks, some tens of thousands of lines.
const namesMaxTotal = 2 << 20

// undefinedUse is one use of an undeclared name in a file.
type undefinedUse struct {
	name string
	pos  token.Pos
}

// undefinedIn type-checks g's package from g and others and returns the
// uses of undeclared names in g, and the package's scope; ok is false
// where the check cannot tell.
func (d *pkgDir) undefinedIn(g goFile, others []goFile) (uses []undefinedUse, scope *types.Scope, ok bool) {
	files := []*ast.File{g.file}
	for _, o := range others {
		if o.pkg == g.pkg && (g.test || !o.test) {
			files = append(files, o.file)
		}
	}
	for _, f := range files {
		for _, im := range f.Imports {
			if im.Name != nil && im.Name.Name == "." {
				return nil, nil, false
			}
		}
	}
	bases := map[token.Pos]bool{} // the X of every X.Y in g
	ast.Inspect(g.file, func(n ast.Node) bool {
		if s, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := s.X.(*ast.Ident); ok {
				bases[id.Pos()] = true
			}
		}
		return true
	})
	conf := types.Config{
		Importer:                 emptyImporter{},
		FakeImportC:              true,
		DisableUnusedImportCheck: true,
		Error: func(err error) {
			te, ok := err.(types.Error)
			if !ok || te.Fset.File(te.Pos) != d.fset.File(g.file.Pos()) || bases[te.Pos] {
				return
			}
			if name, ok := strings.CutPrefix(te.Msg, "undefined: "); ok && token.IsIdentifier(name) {
				uses = append(uses, undefinedUse{name, te.Pos})
			}
		},
	}
	pkg, ok := checkTypes(&conf, g.pkg, d.fset, files)
	if !ok || pkg == nil {
		return nil, nil, false
	}
	return uses, pkg.Scope(), true
}

// checkTypes runs conf over files; ok is false if go/types panics, which
// a crafted file must not turn into a crash of the agent.
func checkTypes(conf *types.Config, name string, fset *token.FileSet, files []*ast.File) (pkg *types.Package, ok bool) {
	defer func() {
		if recover() != nil {
			pkg, ok = nil, false
		}
	}()
	pkg, _ = conf.Check(name, fset, files, nil) // errors come through conf.Error
	return pkg, true
}

// emptyImporter gives every import as an empty, complete package named
// after the last element of its path.
type emptyImporter struct{}

func (emptyImporter) Import(p string) (*types.Package, error) {
	name := path.Base(p)
	if i := strings.IndexAny(name, ".-"); i > 0 {
		name = name[:i]
	}
	if !token.IsIdentifier(name) {
		name = "_" // declares nothing: its uses are left out as X of X.Y
	}
	pkg := types.NewPackage(p, name)
	pkg.MarkComplete()
	return pkg, nil
}

// nearestNames returns up to three names declared in scope s (up to and
// with the package scope pkg, not the language's own) whose spelling is
// nearest to name: at most a third of its letters, and at least one,
// apart.
func nearestNames(name string, s, pkg *types.Scope) []string {
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	seen := map[string]bool{}
	limit := max(1, len(name)/3)
	for ; s != nil; s = s.Parent() {
		for _, n := range s.Names() {
			if seen[n] || n == "_" {
				continue
			}
			seen[n] = true
			if dist := editDistance(strings.ToLower(n), strings.ToLower(name)); dist <= limit {
				cands = append(cands, cand{n, dist})
			}
		}
		if s == pkg {
			break
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for _, c := range cands[:min(len(cands), 3)] {
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// refuseUndefined returns the refusal of writing g over rel when g uses
// an undeclared name more often than was, the file's text before (nil
// for a new file), and false when the write may go ahead.
func (d *pkgDir) refuseUndefined(tool, rel string, g goFile, was *goFile, others []goFile) (Result, bool) {
	if d.partial || d.total+len(d.text) > namesMaxTotal {
		return Result{}, false
	}
	uses, scope, ok := d.undefinedIn(g, others)
	if !ok || len(uses) == 0 {
		return Result{}, false
	}
	before := map[string]int{}
	if was != nil {
		old, _, ok := d.undefinedIn(*was, others)
		if !ok {
			return Result{}, false
		}
		for _, u := range old {
			before[u.name]++
		}
	}
	count, listed := map[string]int{}, map[string]bool{}
	var added []undefinedUse // each name once, at its first use past those before
	for _, u := range uses {
		if count[u.name]++; count[u.name] > before[u.name] && !listed[u.name] {
			listed[u.name] = true
			added = append(added, u)
		}
	}
	if len(added) == 0 {
		return Result{}, false
	}
	const shown = 4
	var b strings.Builder
	var names []string
	for _, u := range added {
		names = append(names, fmt.Sprintf("%s (line %d)", u.name, d.fset.Position(u.pos).Line))
	}
	fmt.Fprintf(&b, "%s: not written: %s would use %s, declared nowhere in package %s; go build would fail (undefined: %s).",
		tool, rel, listNames(names, shown), g.pkg, added[0].name)
	for _, u := range added[:min(len(added), shown)] {
		if near := nearestNames(u.name, scope.Innermost(u.pos), scope); len(near) > 0 {
			fmt.Fprintf(&b, " Declared near line %d: %s.", d.fset.Position(u.pos).Line, strings.Join(near, ", "))
		}
	}
	fmt.Fprintf(&b, " %s %s; use a declared name, or declare %s first.", rel, unchanged(was != nil), added[0].name)
	return Result{Content: b.String(), IsError: true}, true
}
