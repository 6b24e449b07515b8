package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pkgFiles is a directory of package calc: a file, a type with a method,
// an internal test, and a file the build leaves out.
var pkgFiles = map[string]string{
	"calc.go":         rankGo,
	"table.go":        "package calc\n\ntype Table struct{}\n\nfunc (t *Table) Add(n int) {}\n",
	"calc_test.go":    "package calc\n\nimport \"testing\"\n\nfunc TestRank(t *testing.T) {}\n",
	"gen.go":          "//go:build ignore\n\npackage main\n\nfunc Rank() {}\n",
	"other/other.go":  "package other\n",
	"mixed/a.go":      "package a\n\nfunc F() {}\n",
	"mixed/b.go":      "package b\n\nfunc F() {}\n",
	"wrong/ok.go":     "package wrong\n",
	"wrong/stray.go":  "package stray\n",
	"wrong/stray2.go": "package wrong\n",
	"testdata/a.go":   "package a\n",
	"_old/a.go":       "package a\n",
	"tests/a_test.go": "package stats\n",
	"tests/b_test.go": "package stats_test\n",
}

func TestWriteKeepsPackage(t *testing.T) {
	runWriteCases(t, pkgFiles, []writeCase{
		// The package clause.
		{"extra_test.go", "package budget\n",
			"write_file: not written: extra_test.go would say package budget, but the Go files beside it (calc.go, table.go) are package calc, and a directory holds one package, so go build would fail. " +
				"extra_test.go was not created; send it again with package calc (or package calc_test, for a test of it from outside)."},
		{"main.go", "package main\n\nfunc main() {}\n",
			"write_file: not written: main.go would say package main, but the Go files beside it (calc.go, table.go) are package calc, and a directory holds one package, so go build would fail. " +
				"main.go was not created; send it again with package calc."},
		{"calc.go", "package budget\n\nfunc Rank(marks int) string { return \"\" }\n",
			"write_file: not written: calc.go would say package budget, but the Go files beside it (table.go) are package calc, and a directory holds one package, so go build would fail. " +
				"calc.go is unchanged; send it again with package calc."},
		{"extra.go", "package calc\n\nfunc Extra() {}\n", ""},
		{"ext_test.go", "package calc_test\n\nfunc TestRank() {}\n", ""}, // its own scope
		{"int_test.go", "package calc\n\nfunc TestExtra() {}\n", ""},
		{"new/new.go", "package other\n", ""},                            // a new directory
		{"calc_windows.go", "package elsewhere\n\nfunc Rank() {}\n", ""}, // not built on this machine
		{"tool.go", "//go:build ignore\n\npackage main\n\nfunc Rank() {}\n", ""},
		{"_scratch.go", "package scratch\n", ""},
		{"mixed/c.go", "package c\n", ""},                        // the directory does not tell
		{"wrong/stray.go", "package stray\n\nfunc G() {}\n", ""}, // was wrong before: may be mended in steps
		{"notes.txt", "package budget\n", ""},
		{"tests/c_test.go", "package tally\n",
			"write_file: not written: tests/c_test.go would say package tally, but the Go files beside it (a_test.go, b_test.go) are package stats, and a directory holds one package, so go build would fail. " +
				"tests/c_test.go was not created; send it again with package stats (or package stats_test, for a test of it from outside)."},
		{"tests/c_test.go", "package stats_test\n", ""}, // a directory of tests only: theirs is the package
		{"tests/stats.go", "package stats\n", ""},
		{"testdata/b.go", "package b\n", ""}, // the go command ignores these directories
		{"_old/b.go", "package b\n", ""},
		// Package-level names.
		{"extra.go", "package calc\n\nfunc Rank(n int) string { return \"\" }\n\nvar Table, x = 1, 2\n",
			"write_file: not written: extra.go would declare names its package already has: Rank (in calc.go), Table (in table.go); go build would fail (redeclared in this block). " +
				"extra.go was not created; use a new name, or change the declaration where it is."},
		{"rank_test.go", "package calc\n\nimport \"testing\"\n\nfunc TestRank(t *testing.T) {}\n",
			"write_file: not written: rank_test.go would declare names its package already has: TestRank (in calc_test.go); go build would fail (redeclared in this block). " +
				"rank_test.go was not created; use a new name, or change the declaration where it is."},
		{"more.go", "package calc\n\nfunc (Table) Add(int) {}\n",
			"write_file: not written: more.go would declare names its package already has: method Table.Add (in table.go); go build would fail (redeclared in this block). " +
				"more.go was not created; use a new name, or change the declaration where it is."},
		{"twice.go", "package calc\n\nfunc A() {}\n\nconst A = 1\n",
			"write_file: not written: twice.go would declare names its package already has: A (twice in twice.go); go build would fail (redeclared in this block). " +
				"twice.go was not created; use a new name, or change the declaration where it is."},
		{"more.go", "package calc\n\nfunc (t *Table) Sub(n int) {}\n\nfunc init() {}\n\nfunc init() {}\n\nvar _, _ = 1, 2\n", ""},
		{"table.go", "package calc\n\ntype Table struct{ n int }\n\nfunc (t *Table) Add(n int) { t.n += n }\n", ""}, // itself
	})
	ws := newWorkspace(t, pkgFiles, Config{NoSyntaxCheck: true})
	if r := call(t, WriteFile{}, ws, `{"path": "extra_test.go", "content": "package budget\n"}`); r.IsError {
		t.Errorf("NoSyntaxCheck: %q, want the write made", r.Content)
	}
}

// writeCase is a write_file call and its refusal, or "" for a write that
// goes ahead.
type writeCase struct{ path, content, want string }

// runWriteCases makes each write in a fresh workspace of files: a refused
// one must say want and leave the file as it was (or absent), another
// must be written.
func runWriteCases(t *testing.T, files map[string]string, cases []writeCase) {
	t.Helper()
	for _, tt := range cases {
		ws := newWorkspace(t, files, Config{})
		before, beforeErr := os.ReadFile(filepath.Join(ws.Root(), tt.path))
		args, err := json.Marshal(WriteFileParams{Path: tt.path, Content: tt.content})
		if err != nil {
			t.Fatal(err)
		}
		r := call(t, WriteFile{}, ws, string(args))
		after, afterErr := os.ReadFile(filepath.Join(ws.Root(), tt.path))
		switch {
		case tt.want == "" && (r.IsError || string(after) != tt.content):
			t.Errorf("write_file %s %q: %q, want it written", tt.path, tt.content, r.Content)
		case tt.want != "" && (!r.IsError || r.Content != tt.want):
			t.Errorf("write_file %s %q:\n got %q\nwant %q", tt.path, tt.content, r.Content, tt.want)
		case tt.want != "" && (string(after) != string(before) || (beforeErr == nil) != (afterErr == nil)):
			t.Errorf("write_file %s refused, yet the file changed", tt.path)
		}
	}
}

func TestEditKeepsPackage(t *testing.T) {
	files := map[string]string{
		"calc.go":  rankGo,
		"table.go": "package calc\n\ntype Table struct{}\n",
		"dup.go":   "package calc\n\nfunc Rank() {}\n\nfunc Other() {}\n",
	}
	runEditCases(t, files, []editCase{
		{"table.go", "package calc", "package tally",
			"edit_file: not written: table.go would say package tally, but the Go files beside it (calc.go, dup.go) are package calc, and a directory holds one package, so go build would fail. " +
				"table.go is unchanged; send it again with package calc."},
		{"table.go", "type Table struct{}", "type Table struct{}\n\nfunc Other() {}",
			"edit_file: not written: table.go would declare names its package already has: Other (in dup.go); go build would fail (redeclared in this block). " +
				"table.go is unchanged; use a new name, or change the declaration where it is."},
		{"calc.go", "func Rank(", "func Grade() {}\n\nfunc Grade() {}\n\nfunc Rank(",
			"edit_file: not written: calc.go would declare names its package already has: Grade (twice in calc.go); go build would fail (redeclared in this block). " +
				"calc.go is unchanged; use a new name, or change the declaration where it is."},
		{"dup.go", "func Other() {}", "func Another() {}", ""}, // Rank clashed before; the edit does not add to it
		{"dup.go", "func Rank() {}", "func Unique() {}", ""},   // the edit that mends it
	})
}

// editCase is an edit_file call and its refusal, or "" for an edit that
// goes ahead.
type editCase struct{ path, old, new, want string }

// runEditCases makes each edit in a fresh workspace of files: a refused
// one must say want and leave the file as it was, another must be made.
func runEditCases(t *testing.T, files map[string]string, cases []editCase) {
	t.Helper()
	for _, tt := range cases {
		ws := newWorkspace(t, files, Config{})
		args, err := json.Marshal(EditFileParams{Path: tt.path, OldString: tt.old, NewString: tt.new})
		if err != nil {
			t.Fatal(err)
		}
		r := call(t, EditFile{}, ws, string(args))
		after := readBack(t, ws, tt.path)
		switch {
		case tt.want == "" && (r.IsError || !strings.Contains(after, tt.new)):
			t.Errorf("edit_file %s %q -> %q: %q, want it made", tt.path, tt.old, tt.new, r.Content)
		case tt.want != "" && (r.Content != tt.want || after != files[tt.path]):
			t.Errorf("edit_file %s %q -> %q:\n got %q\nwant %q (file unchanged)", tt.path, tt.old, tt.new, r.Content, tt.want)
		}
	}
}

// BenchmarkPackageCheck times an edit_file call in a directory of 200 Go
// files of 40 functions each, which the package check reads and parses
// and the names check type-checks.
func BenchmarkPackageCheck(b *testing.B) {
	files := map[string]string{}
	for i := range 200 {
		var s strings.Builder
		s.WriteString("package big\n")
		for j := range 40 {
			fmt.Fprintf(&s, "\n// F%d_%d returns n plus %d.\nfunc F%d_%d(n int) int {\n\treturn n + %d\n}\n", i, j, j, i, j, j)
		}
		files[fmt.Sprintf("f%03d.go", i)] = s.String()
	}
	ws := newWorkspace(b, files, Config{})
	args := []string{`{"path": "f000.go", "old_string": "// F0_1 returns n plus 1.", "new_string": "// F0_1 returns n plus one."}`,
		`{"path": "f000.go", "old_string": "// F0_1 returns n plus one.", "new_string": "// F0_1 returns n plus 1."}`}
	b.ResetTimer()
	for i := range b.N {
		if r := call(b, EditFile{}, ws, args[i%2]); r.IsError {
			b.Fatal(r.Content)
		}
	}
}
