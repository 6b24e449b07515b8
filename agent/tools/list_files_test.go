package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestListFiles(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		"go.mod":            "module x\n",
		"main.go":           "package main\n",
		"a/b.go":            "package a\n",
		"a/c/d.go":          "package c\n",
		"a/c/e.txt":         "e\n",
		".git/HEAD":         "ref\n",
		"node_modules/m.js": "m\n",
	}, Config{})
	tests := []struct {
		name, pattern, want string
	}{
		{name: "root", pattern: "*", want: ".git/\na/\ngo.mod\nmain.go\nnode_modules/"},
		{name: "dot", pattern: ".", want: ".git/\na/\ngo.mod\nmain.go\nnode_modules/"},
		{name: "all go files", pattern: "**/*.go", want: "a/b.go\na/c/d.go\nmain.go"},
		{name: "double star in the middle", pattern: "a/**/*.go", want: "a/b.go\na/c/d.go"},
		{name: "everything", pattern: "**", want: ".git/\na/\na/b.go\na/c/\na/c/d.go\na/c/e.txt\ngo.mod\nmain.go\nnode_modules/"},
		{name: "one level", pattern: "a/*", want: "a/b.go\na/c/"},
		{name: "directory name", pattern: "a/c", want: "a/c/d.go\na/c/e.txt"},
		{name: "directory with slash", pattern: "a/c/", want: "a/c/d.go\na/c/e.txt"},
		{name: "dot slash", pattern: "./a/*.go", want: "a/b.go"},
		{name: "file name", pattern: "go.mod", want: "go.mod"},
		{name: "class", pattern: "a/c/[de].*", want: "a/c/d.go\na/c/e.txt"},
		{name: "inside a skipped directory", pattern: "node_modules/*", want: "node_modules/m.js"},
		{name: "no match", pattern: "**/*.rs", want: `No files match "**/*.rs".`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := call(t, ListFiles{}, ws, fmt.Sprintf(`{"pattern": %q}`, tt.pattern))
			if diff := cmp.Diff(Result{Content: tt.want}, got); diff != "" {
				t.Errorf("list_files(%q) mismatch (-want +got):\n%s", tt.pattern, diff)
			}
		})
	}
	r := call(t, ListFiles{}, ws, `{"pattern": "a/[b"}`)
	if !r.IsError || !strings.Contains(r.Content, "not a valid glob") {
		t.Errorf("list_files(a/[b) = %+v, want an invalid-glob error", r)
	}
}

func TestListFilesCap(t *testing.T) {
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("f%02d.txt", i)] = ""
	}
	ws := newWorkspace(t, files, Config{MaxFiles: 4})
	got := call(t, ListFiles{}, ws, `{"pattern": "*.txt"}`)
	want := "f00.txt\nf01.txt\nf02.txt\nf03.txt\n[26 more paths not shown; use a narrower pattern]"
	if got.Content != want {
		t.Errorf("list_files with MaxFiles 4 = %q, want %q", got.Content, want)
	}
}

func TestMatchGlob(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"*.go", "main.go", true},
		{"*.go", "a/main.go", false},
		{"**/*.go", "main.go", true},
		{"**/*.go", "a/b/c.go", true},
		{"a/**", "a", true},
		{"a/**", "a/b/c", true},
		{"a/**/c", "a/c", true},
		{"a/**/c", "a/x/y/c", true},
		{"a/**/c", "a/x/y/d", false},
		{"**/**/**/x", "x", true},
		{"?.go", "ab.go", false},
	}
	for _, tt := range tests {
		if got := matchGlob(tt.pattern, tt.name); got != tt.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}
