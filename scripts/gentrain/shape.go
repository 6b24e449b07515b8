package main

import (
	"math/rand/v2"
	"path"
	"strings"

	"github.com/loopagent/loop/agent/tools"
)

// Workspace shapes. A task's family says what the user asks; its shape
// says what the repository looks like: the module path, the directory of
// the package, how its code is split into files, whether functions carry
// doc comments, how long the files are, and which files lie about that the
// task does not touch. The held-out shapes are never drawn for a training
// chat: a model trained on the others meets them first in the held-out
// tasks, as it would meet a user's repository.
type shape struct {
	name    string
	heldOut bool
	// module is the go.mod module path of a package called name.
	module func(r *rand.Rand, name string) string
	// dir is the package's directory ("" for the module root).
	dir func(name string) string
	// split puts each function in a file of its own, named after it.
	split bool
	// file names the source file of a package that keeps one.
	file func(r *rand.Rand, name string) string
	// comments gives every function a doc comment.
	comments bool
	// fillers is the most functions without a bug beside the ones a task
	// needs, each with a passing test.
	fillers int
	// extras are files the task never touches.
	extras func(r *rand.Rand, module, name string) []File
	// vary, set on the varied shape alone, draws the task's own shape.
	vary func(r *rand.Rand) shape
}

// shapes are the workspace shapes, the held-out ones last. The held-out
// ones share no directory, module host or file name pattern with the
// others (TestHeldOutShapes checks it): pkg/ and lib/ directories,
// example.com and gitlab.com modules, *_impl.go files, docs/ and
// CHANGELOG.md.
var shapes = []shape{
	{name: "flat", module: bare, dir: root, file: named, comments: true},
	{name: "split", module: bare, dir: root, split: true, comments: true, extras: docFile},
	{name: "nested", module: github, dir: func(n string) string { return "internal/" + n }, file: named, comments: true, extras: cmdMain},
	{name: "long", module: bare, dir: root, file: named, comments: true, fillers: 6},
	{name: "cluttered", module: bare, dir: root, file: generic, fillers: 2, extras: clutter},
	{name: "pkgdir", heldOut: true, module: example, dir: func(n string) string { return "pkg/" + n }, split: true, extras: design},
	{name: "monolith", heldOut: true, module: gitlab, dir: func(n string) string { return "lib/" + n }, file: impl, comments: true, fillers: 5, extras: changelog},
}

// varied is the training shape drawn afresh for each task (gentrain
// --varied-share): the module host, the package's directory, its file
// names, whether each function has a file of its own, doc comments,
// fillers and the files beside are each drawn, so that a model trained on
// it finds a path by reading it (in the task, a grep, a test's output)
// rather than by knowing the generator's few layouts. Its lists share
// nothing with the held-out shapes (TestHeldOutShapes).
var varied = shape{name: "varied", vary: drawShape}

var (
	variedHosts = []string{"", "github.com/", "bitbucket.org/", "codeberg.org/", "git.sr.ht/~"}
	// variedDirs: the package's directory, "%s" standing for its name.
	variedDirs  = []string{"", "%s", "internal/%s", "src/%s", "app/%s", "core/%s", "services/%s", "modules/%s", "internal/app/%s"}
	variedFiles = []func(r *rand.Rand, name string) string{named, generic,
		func(_ *rand.Rand, n string) string { return n + "_ops.go" },
		func(_ *rand.Rand, n string) string { return n + "_funcs.go" },
		func(*rand.Rand, string) string { return "logic.go" },
		func(*rand.Rand, string) string { return "helpers.go" },
	}
)

// drawShape draws the varied shape of one task.
func drawShape(r *rand.Rand) shape {
	host := pick(r, variedHosts)
	dir := pick(r, variedDirs)
	s := shape{
		name: "varied",
		module: func(r *rand.Rand, name string) string {
			if host == "" {
				return name
			}
			return host + pick(r, orgs) + "/" + name
		},
		dir:      func(n string) string { return strings.ReplaceAll(dir, "%s", n) },
		split:    r.IntN(3) == 0,
		file:     pick(r, variedFiles),
		comments: r.IntN(2) == 0,
		fillers:  pick(r, []int{0, 2, 4, 6}),
	}
	extras := []func(r *rand.Rand, module, name string) []File{nil, cmdMain, clutter, readme}
	if dir == "" {
		extras = append(extras, docFile) // doc.go names the package at the root
	}
	s.extras = pick(r, extras)
	return s
}

func readme(_ *rand.Rand, module, name string) []File {
	return []File{{"README.md", "# " + name + "\n\nThe " + module + " module.\n"}}
}

// trainShapes and heldShapes are the shapes of training chats and of the
// held-out tasks' second half.
var trainShapes, heldShapes = splitShapes()

func splitShapes() (train, held []shape) {
	for _, s := range shapes {
		if s.heldOut {
			held = append(held, s)
		} else {
			train = append(train, s)
		}
	}
	return train, held
}

var orgs = []string{"acme", "octo", "nimbus", "brightlabs", "kestrel", "tern", "quill", "umbra"}

func bare(_ *rand.Rand, name string) string    { return name }
func github(r *rand.Rand, name string) string  { return "github.com/" + pick(r, orgs) + "/" + name }
func example(_ *rand.Rand, name string) string { return "example.com/" + name }
func gitlab(r *rand.Rand, name string) string  { return "gitlab.com/" + pick(r, orgs) + "/" + name }
func root(string) string                       { return "" }
func named(_ *rand.Rand, name string) string   { return name + ".go" }
func impl(_ *rand.Rand, name string) string    { return name + "_impl.go" }
func generic(r *rand.Rand, _ string) string {
	return pick(r, []string{"lib.go", "funcs.go", "core.go", "util.go"})
}

func docFile(_ *rand.Rand, _, name string) []File {
	return []File{{"doc.go", "// Package " + name + " holds small helpers of the " + name + " service.\npackage " + name + "\n"}}
}

func cmdMain(_ *rand.Rand, module, name string) []File {
	return []File{
		{"cmd/" + name + "/main.go", gofmt("package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"" + name + "\")\n}\n")},
		{"README.md", "# " + name + "\n\nGo module " + module + ". Run `go test ./...`.\n"},
	}
}

func clutter(r *rand.Rand, module, name string) []File {
	w := pick(r, words)
	return []File{
		{"README.md", "# " + name + "\n\nHelpers for " + name + ".\n\n## Testing\n\n    go test ./...\n"},
		{"Makefile", "test:\n\tgo test ./...\n"},
		{".gitignore", "/bin/\n*.out\n"},
		{"testdata/sample.json", "{\"name\": \"" + w + "\", \"count\": " + itoa(between(r, 1, 99)) + "}\n"},
		{"util/util.go", gofmt("package util\n\n// Trim returns s without its surrounding spaces.\nfunc Trim(s string) string {\n\tfor len(s) > 0 && s[0] == ' ' {\n\t\ts = s[1:]\n\t}\n\tfor len(s) > 0 && s[len(s)-1] == ' ' {\n\t\ts = s[:len(s)-1]\n\t}\n\treturn s\n}\n")},
		{"util/util_test.go", gofmt("package util\n\nimport \"testing\"\n\nfunc TestTrim(t *testing.T) {\n\tif got := Trim(\"  " + w + " \"); got != \"" + w + "\" {\n\t\tt.Errorf(\"Trim = %q\", got)\n\t}\n}\n")},
	}
}

func design(_ *rand.Rand, module, name string) []File {
	return []File{
		{"docs/DESIGN.md", "# Design of " + name + "\n\nThe package " + module + "/pkg/" + name + " keeps one function per file.\n"},
		{"scripts/check.sh", "#!/bin/sh\nset -e\ngo test ./...\n"},
	}
}

func changelog(r *rand.Rand, module, name string) []File {
	return append(cmdMain(r, module, name), File{"CHANGELOG.md", "# Changelog\n\n## v0." + itoa(between(r, 1, 9)) + ".0\n\n- First release of " + module + ".\n"})
}

// heldOutMarks are the path parts and module hosts only held-out shapes
// use.
var heldOutMarks = []string{"pkg/", "lib/", "docs/", "_impl.go", "CHANGELOG.md", "example.com/", "gitlab.com/"}

// env is what a family draws a task for beside its random source: the
// workspace's shape and read_file's limits at the run's window.
type env struct {
	shape     shape
	readLines int  // read_file's default number of lines
	readChars int  // the characters a read_file result shows
	wide      bool // names of two words from nameWords (--names wide)
}

// newEnv is the env of a shape at a context window.
func newEnv(s shape, window int) env {
	c := tools.Config{Window: window}
	return env{shape: s, readLines: max(tools.ReadLinesForWindow(window), 1), readChars: 2 * max(tools.ToolCapForWindow(c.Window), 256)}
}

// maxSpan is the most lines an edit that copies spans: 40, or fewer when
// read_file shows fewer lines at the window (the file around it must fit
// one read).
func (e env) maxSpan() int { return min(40, e.readLines-4) }

// fitsRead reports whether read_file shows content whole at this window.
func (e env) fitsRead(content string) bool {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	if len(lines) > e.readLines {
		return false
	}
	n := 0
	for i, l := range lines {
		n += len(itoa(i+1)) + 3 + len(l)
	}
	return n <= e.readChars
}

// pkgName is the package name of a directory of a module.
func pkgName(dir, module string) string {
	if dir == "" {
		return path.Base(module)
	}
	return path.Base(dir)
}

// isHeldOutShape reports whether the shape of that name is held out.
func isHeldOutShape(name string) bool {
	for _, s := range heldShapes {
		if s.name == name {
			return true
		}
	}
	return false
}
