package main

import (
	"math/rand/v2"
	"path"
	"strings"

	"github.com/loopagent/loop/agent/loop"
)

// recoverTask is the family of recoveries from each error a tool returns:
// a file the user named is not where they said (read_file fails,
// list_files or grep finds it); an edit written from the task alone does
// not match the file (edit_file shows the closest lines, the second edit
// fits); an old_string that occurs twice (edit_file names both places, the
// second edit adds a neighbouring line); a command the shell refuses
// (asked for by the user, or written out of habit, then the allowed one);
// and an edit that breaks the build (go test fails, the next edit fixes
// it). A call that a model should not have written is shown, not trained.
func recoverTask(r *rand.Rand, e env) Task {
	switch r.IntN(6) {
	case 0:
		return missingFileTask(r, e)
	case 1:
		return editMismatchTask(r, e)
	case 2:
		return notUniqueTask(r, e)
	case 3:
		return refusedTask(r, e)
	case 4:
		return sudoTask(r, e)
	}
	return undeclaredTask(r, e)
}

// trainSubdirs are where a settings file lives in a shape whose package is
// at the module root.
var trainSubdirs = []string{"internal/config", "internal/app", "config", "internal/server", "internal/settings", "app/config"}

func missingFileTask(r *rand.Rand, e env) Task {
	p := emptyPackage(r, e)
	dir := p.dir
	if dir == "" {
		dir = pick(r, trainSubdirs)
	}
	s := newSettings(r, e, path.Base(dir))
	name := pick(r, []string{"config.go", "settings.go", "limits.go", "defaults.go"})
	full := dir + "/" + name
	q := s.question(r, name)
	q.a = strings.TrimSuffix(q.a, ".") + " (in " + full + ")."
	files := append([]File{{"go.mod", "module " + p.module + "\n\ngo 1.22\n"}}, p.extras...)
	if !hasFile(files, "main.go") && !hasFile(files, "cmd/"+p.name+"/main.go") {
		files = append(files, File{"main.go", "package main\n\nfunc main() {}\n"})
	}
	t := Task{
		Files: append(files, File{full, s.source()}),
		Text:  q.q, Want: loop.Done, Answer: q.re, FirstTool: "read_file",
		Grounds: []string{name + ": no such file", q.line},
	}
	if q.constant != "" && r.IntN(3) == 0 {
		// grep shows the constant's line itself: no second read.
		t.Replies = []string{readFile(name), grep(q.constant), q.a}
		t.Variant = "missing-grep"
		return t
	}
	t.Replies = []string{readFile(name), listFiles("**/" + name), readFile(full), q.a}
	t.Variant = "missing"
	return t
}

func editMismatchTask(r *rand.Rand, e env) Task {
	p := newPackage(r, 2, e)
	for strings.Contains(p.content(p.source()), p.bug().guess) { // the guess must miss (bands 340 and 341)
		p = newPackage(r, 2, e)
	}
	b, file := p.bug(), p.source()
	show, _ := showFunc(e, file, p.content(file), b.fn)
	replies := append([]string{editFile(file, b.guess, b.guessFix)}, show...)
	return Task{
		Files: p.files(),
		Text: pick(r, []string{
			b.fn + " in " + file + " " + b.symptom + ". Fix it.",
			"Fix the " + b.kind + " bug in " + b.fn + " (" + file + ").",
		}),
		Replies: append(replies,
			editFile(file, b.bad, b.good),
			shell(goTest),
			"Fixed "+b.fn+" in "+file+": "+b.fixed+". The tests pass.",
		),
		Want: loop.Verified, Check: goTest, FirstTool: "edit_file",
		Grounds: []string{"old_string was not found in " + file, firstLine(b.bad)},
		Variant: "mismatch",
	}
}

// notUniqueTask fixes a loop that starts at 1 in a file where a second
// function starts the same loop at 1 on purpose: the first edit gives
// only the loop's line, which occurs twice; the second adds the lines
// above it.
func notUniqueTask(r *rand.Rand, e env) Task {
	p := emptyPackage(r, e)
	b := sumBug(r, e)
	v := b.param
	twin := b.fn + "AfterFirst"
	xs := distinct(r, 3, 1, 20)
	test, _ := callTest(twin, "[]int{"+goList(xs)+"}", fmtList(xs), itoa(xs[1]+xs[2]), "")
	p.funcs = []bug{b, {fn: twin, testName: "Test" + twin, test: test,
		src: "// " + twin + " returns the sum of " + v + " without its first value.\nfunc " + twin + "(" + v + " []int) int {\n\ttotal := 0\n\t" + b.bad + "\n\t\ttotal += " + v + "[i]\n\t}\n\treturn total\n}"}}
	p.broken = []int{0}
	p.addFillers(r, e)
	p.shuffle(r)
	p.place(r, e)
	for i := range p.funcs {
		if p.funcs[i].fn == twin {
			p.home[i] = p.home[p.broken[0]] // the twin shares the file
		}
	}
	file := p.source()
	show, _ := showFunc(e, file, p.content(file), b.fn)
	head := "func " + b.fn + "(" + v + " []int) int {\n\ttotal := 0\n\t"
	replies := append(show, editFile(file, b.bad, b.good), editFile(file, head+b.bad, head+b.good), shell(goTest),
		"Fixed "+b.fn+" in "+file+": "+b.fixed+". "+twin+" keeps its loop from 1, as it should. The tests pass.")
	return Task{
		Files: p.files(),
		Text: pick(r, []string{
			b.fn + " in " + file + " " + b.symptom + ". Fix it.",
			b.testName + " fails. Fix " + b.fn + " in " + file + ".",
		}),
		Replies: replies, Unweighted: []int{len(show)},
		Want: loop.Verified, Check: goTest, FirstTool: toolOf(show[0]),
		Grounds: []string{"old_string occurs 2 times in " + file, b.bad},
		Variant: "notunique",
	}
}

// refusedTask is a fix the user also wants pushed: git push is refused,
// and the answer says so instead of trying again.
func refusedTask(r *rand.Rand, e env) Task {
	t := fixTask(r, e)
	b := t.Text
	t.Text = strings.TrimSuffix(b, ".") + pick(r, []string{", then git push.", ", and push the fix with git push."})
	last := t.Replies[len(t.Replies)-1]
	t.Replies = append(t.Replies[:len(t.Replies)-1:len(t.Replies)-1], shell("git push"),
		last+" git push was refused here (it is on the deny list), so the fix is not pushed: push it yourself.")
	t.Grounds = append(t.Grounds, `"git push" matches the deny list`)
	t.Variant = "refused-push"
	return t
}

// sudoTask runs the tests with sudo out of habit: the shell refuses it,
// and the same command without sudo runs.
func sudoTask(r *rand.Rand, e env) Task {
	t := failingTask(r, e)
	t.Replies = append([]string{shell("sudo " + goTest)}, t.Replies...)
	t.Unweighted = []int{0}
	t.Grounds = append(t.Grounds, "matches the deny list (sudo)")
	t.Variant = "refused-sudo"
	return t
}

// undeclaredTask is a fix whose first edit names a variable the function
// does not have: edit_file refuses it (the names check: "would use X,
// declared nowhere"), and the second edit makes the fix.
func undeclaredTask(r *rand.Rand, e env) Task {
	var p goPackage
	var b bug
	var file, undefined string
	for {
		p = newPackage(r, 2, e)
		b, file = p.bug(), p.source()
		undefined = undefinedName(b)
		// maxBug's guess names max, which Go has built in: it is not
		// undefined.
		if !strings.Contains(b.bad, "\n") && !strings.Contains(b.guessFix, " max ") && undefined != "" {
			break
		}
	}
	show, decl := showFunc(e, file, p.content(file), b.fn)
	replies := append(show, editFile(file, b.bad, b.guessFix), editFile(file, b.bad, b.good), shell(goTest),
		"Fixed "+b.fn+" in "+file+": "+b.fixed+". The tests pass.")
	return Task{
		Files: p.files(),
		Text: pick(r, []string{
			b.fn + " in " + file + " " + b.symptom + ". Fix it.",
			"Fix the " + b.kind + " bug in " + b.fn + " in " + file + " and run the tests.",
		}),
		Replies: replies, Unweighted: []int{len(show)},
		Want: loop.Verified, Check: goTest, FirstTool: toolOf(show[0]),
		Grounds: []string{decl, undefined + " (line ", "declared nowhere"},
		Variant: "undeclared",
	}
}

// undefinedName is the name in b.guessFix that the function lacks, or ""
// if it lacks none (the guess would build, and the task needs it not to).
func undefinedName(b bug) string {
	for _, w := range strings.FieldsFunc(b.guessFix, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_')
	}) {
		if w[0] >= 'a' && w[0] <= 'z' && w != "for" && w != "if" && w != "return" && w != "len" && w != "i" && w != "x" && !strings.Contains(b.source(true), w) {
			return w
		}
	}
	return ""
}
