package repomap

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strings"
)

// extractGo parses Go source with go/parser: functions, methods with
// their receivers, types (exported and unexported), and exported
// constants and variables. A file with syntax errors gives what the
// parser could read.
func extractGo(path string, src []byte) ([]Decl, map[string]int) {
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if f == nil {
		return nil, identifiers(string(src))
	}
	var decls []Decl
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			fd := *d
			fd.Body, fd.Doc = nil, nil
			decls = append(decls, Decl{Depth: 1, Text: squeeze(node(fset, &fd)), Name: d.Name.Name, Offset: fset.Position(d.Pos()).Offset})
		case *ast.GenDecl:
			decls = append(decls, genDecls(fset, d)...)
		}
	}
	refs := map[string]int{}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name != "_" {
			refs[id.Name]++
		}
		return true
	})
	return decls, refs
}

// genDecls lists a type, const or var declaration's names.
func genDecls(fset *token.FileSet, d *ast.GenDecl) []Decl {
	var out []Decl
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			out = append(out, Decl{Depth: 1, Text: typeHeader(fset, s), Name: s.Name.Name, Offset: fset.Position(s.Pos()).Offset})
		case *ast.ValueSpec:
			for _, n := range s.Names {
				if n.IsExported() {
					out = append(out, Decl{Depth: 1, Text: d.Tok.String() + " " + n.Name, Name: n.Name, Offset: fset.Position(n.Pos()).Offset})
				}
			}
		}
	}
	return out
}

// typeHeader is "type Name struct", "type Name interface", "type Name[T
// any] struct", "type Name = Other" or "type Name int".
func typeHeader(fset *token.FileSet, s *ast.TypeSpec) string {
	h := "type " + s.Name.Name
	if s.TypeParams != nil {
		var params []string
		for _, f := range s.TypeParams.List {
			names := make([]string, len(f.Names))
			for i, n := range f.Names {
				names[i] = n.Name
			}
			params = append(params, strings.Join(names, ", ")+" "+squeeze(node(fset, f.Type)))
		}
		h += "[" + strings.Join(params, ", ") + "]"
	}
	if s.Assign.IsValid() {
		h += " ="
	}
	switch s.Type.(type) {
	case *ast.StructType:
		return h + " struct"
	case *ast.InterfaceType:
		return h + " interface"
	}
	return h + " " + squeeze(node(fset, s.Type))
}

// node prints an AST node.
func node(fset *token.FileSet, n any) string {
	var buf bytes.Buffer
	if err := printer.Fprint(&buf, fset, n); err != nil {
		return ""
	}
	return buf.String()
}
