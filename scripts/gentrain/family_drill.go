package main

import (
	"go/parser"
	"go/token"
	"math/rand/v2"
	"strings"

	"github.com/loopagent/loop/agent/loop"
)

// copyRenameTask is the drill of copying: a file of one or two functions
// whose bodies are random statements over two-word names and numbers,
// and a rename of one name through one function. Nothing in the function
// can be recalled from other chats, whatever --names says: its edit's
// old_string is right only when copied from the file just read, and its
// new_string only when copied from the old_string with the name changed.
// The code compiles (every name is read, every call is to a built-in),
// and the run ends as every edit does: go test, then the answer.
func copyRenameTask(r *rand.Rand, e env) Task {
	pkg := pick(r, nameWords)
	file := pick(r, nameWords) + "_" + pick(r, nameWords) + ".go"
	n := between(r, 1, 2)
	vars := drillNames(r, 3*n+2) // each function's parameters and locals are 2 to 4 of these
	funcs := drillNames(r, n)    // distinct, so that the package builds
	var decls []string
	var target drillFunc
	t := r.IntN(n)
	for i := range n {
		f := newDrillFunc(r, upper(funcs[i]), vars, between(r, 6, 15))
		if i == t {
			target = f
		}
		decls = append(decls, f.src)
	}
	src := gofmt("package " + pkg + "\n\n" + strings.Join(decls, "\n\n") + "\n")
	from := pick(r, target.vars)
	to := drillNames(r, 1)[0]
	for strings.Contains(src, to) {
		to = drillNames(r, 1)[0]
	}
	old, neu, _ := renamed(src, target.name, from, to)
	show, decl := showFunc(e, file, src, target.name)
	return Task{
		Files: []File{{Path: "go.mod", Content: "module " + pkg + "\n\ngo 1.22\n"}, {Path: file, Content: src}},
		Text: pick(r, []string{
			"Rename " + from + " to " + to + " in " + target.name + " in " + file + ".",
			"In " + file + ", rename " + from + " to " + to + " in " + target.name + ".",
			target.name + " in " + file + ": rename " + from + " to " + to + ".",
		}),
		Replies: append(show, editFile(file, old, neu), shell(goTest),
			"Renamed "+from+" to "+to+" in "+target.name+" ("+file+"). It builds."),
		Want: loop.Verified, Check: goTest, PassCheck: renameCheck(file, target.name, from, to),
		FirstTool: toolOf(show[0]),
		Grounds:   []string{decl},
		Variant:   "rename",
	}
}

// drillFunc is one function of a copy drill: its source, name, and the
// names its body uses (parameters and locals).
type drillFunc struct {
	src, name string
	vars      []string
}

// newDrillFunc writes function name, of about lines lines of random
// statements: one to three int parameters and one to three locals, each line
// an assignment, a condition or a loop over them with numbers from 2 to
// 199, and a return of their sum, which reads every local.
func newDrillFunc(r *rand.Rand, name string, pool []string, lines int) drillFunc {
	vars := pickN(r, pool, between(r, 2, 4))
	params := vars[:between(r, 1, len(vars)-1)]
	var b strings.Builder
	b.WriteString("// " + name + " returns the " + pick(r, nameWords) + " of " + strings.Join(params, " and ") + ".\n")
	b.WriteString("func " + name + "(" + strings.Join(params, ", ") + " int) int {\n")
	body := 0
	for _, v := range vars[len(params):] {
		b.WriteString("\t" + v + " := " + itoa(between(r, 0, 99)) + "\n")
		body++
	}
	for body < lines {
		s := drillStatement(r, vars)
		b.WriteString(s)
		body += strings.Count(s, "\n")
	}
	b.WriteString("\treturn " + strings.Join(vars, " + ") + "\n}")
	return drillFunc{src: b.String(), name: name, vars: vars}
}

// drillStatement is one random statement over vars, with its newline.
func drillStatement(r *rand.Rand, vars []string) string {
	a, b, n := pick(r, vars), pick(r, vars), itoa(between(r, 2, 199))
	switch r.IntN(7) {
	case 0:
		return "\t" + a + " = " + b + " + " + n + "\n"
	case 1:
		return "\t" + a + " += " + b + " * " + n + "\n"
	case 2:
		return "\tif " + a + " > " + n + " {\n\t\t" + a + " -= " + b + "\n\t}\n"
	case 3:
		return "\t" + a + " = min(" + b + ", " + n + ")\n"
	case 4:
		return "\tfor " + a + " < " + n + " {\n\t\t" + a + " += " + b + "\n\t}\n"
	case 5:
		return "\t" + a + " = max(" + a + ", " + b + "-" + n + ")\n"
	}
	return "\t" + a + " = " + b + " % " + n + "\n"
}

// drillNames is n distinct names of two of nameWords: "riverTally".
func drillNames(r *rand.Rand, n int) []string {
	return env{wide: true}.varNames(r, nil, n)
}

// syntaxFixTask is the drill of an edit the tools refuse: a fix whose
// first edit replaces only the start of the buggy text with the whole
// fix, so that the rest of the old line stays behind it, as a small model
// writes it. The file would not parse, so edit_file refuses the edit and
// shows the line as it would have read; the second edit replaces the
// whole buggy text. The refused edit is shown, not trained.
func syntaxFixTask(r *rand.Rand, e env) Task {
	for {
		p := newPackage(r, 2, e)
		b, file := p.bug(), p.source()
		content := p.content(file)
		line, _, _ := strings.Cut(b.bad, "\n")
		sp := strings.IndexByte(line[len(line)/2:], ' ')
		if sp < 0 {
			continue
		}
		part := line[:len(line)/2+sp]
		if strings.Count(content, part) != 1 {
			continue
		}
		broken := strings.Replace(content, part, b.good, 1)
		if _, err := parser.ParseFile(token.NewFileSet(), file, broken, parser.SkipObjectResolution); err == nil {
			continue // it parses: edit_file would make the edit
		}
		show, decl := showFunc(e, file, content, b.fn)
		return Task{
			Files: p.files(),
			Text: pick(r, []string{
				b.testName + " fails. Fix " + b.fn + " in " + file + ".",
				b.fn + " in " + file + " " + b.symptom + ". Fix it.",
				"Fix the " + b.kind + " bug in " + b.fn + " in " + file + ".",
			}),
			Replies: append(show, editFile(file, part, b.good), editFile(file, b.bad, b.good), shell(goTest),
				"Fixed "+b.fn+" in "+file+": "+b.fixed+". The tests pass."),
			Unweighted: []int{len(show)},
			Want:       loop.Verified, Check: goTest, FirstTool: toolOf(show[0]),
			Grounds: []string{decl, file + " would not parse"},
			Variant: "syntax",
		}
	}
}
