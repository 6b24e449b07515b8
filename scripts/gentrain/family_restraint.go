package main

import (
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/loopagent/loop/agent/loop"
)

// restraintTask is the family that needs no tool: a question about Go or
// about the conversation, answered at once, in a workspace that has files
// the model must leave alone.
func restraintTask(r *rand.Rand, e env) Task {
	p := newPackage(r, 2, e)
	q, a, re := restraintQuestion(r)
	return Task{Files: p.files(), Text: q, Replies: []string{a}, Want: loop.Done, Answer: re, NoTool: true}
}

// restraintQuestion draws a question, its answer and the answer's regular
// expression ("" when any polite answer will do).
func restraintQuestion(r *rand.Rand) (q, a, re string) {
	switch r.IntN(7) {
	case 0:
		zero := pick(r, [][3]string{{"int", "0", "0"}, {"string", `"" (the empty string)`, `""|empty`}, {"bool", "false", "false"},
			{"*int", "nil", "nil"}, {"[]string", "nil", "nil"}, {"map[string]int", "nil", "nil"}, {"float64", "0", "0"}, {"error", "nil", "nil"}})
		return "What is the zero value of a " + zero[0] + " in Go?", "The zero value of " + zero[0] + " is " + zero[1] + ".", zero[2]
	case 1:
		w := pick(r, words)
		n := itoa(len(w))
		return `What does len("` + w + `") return in Go?`, n + `: "` + w + `" has ` + n + " bytes.", `\b` + n + `\b`
	case 2:
		id := pick(r, append(append([]string{}, constants...), funcNames...))
		if r.IntN(2) == 0 {
			id = strings.ToLower(id[:1]) + id[1:]
			return "Is " + id + " an exported name in Go?", "No: it starts with a lower-case letter, so only its own package can use it.", `(?i)^no`
		}
		return "Is " + id + " an exported name in Go?", "Yes: it starts with an upper-case letter, so other packages can use it.", `(?i)^yes`
	case 3:
		w, n := pick(r, words), between(r, 2, 3)
		out := strings.Repeat(w, n)
		return `What does strings.Repeat("` + w + `", ` + itoa(n) + `) return?`, `It returns "` + out + `".`, regexp.QuoteMeta(out)
	case 4:
		kw := pick(r, [][3]string{
			{"Which keyword starts a goroutine in Go?", "go: write go f() to run f in a new goroutine.", `\bgo\b`},
			{"Which keyword delays a call until the surrounding function returns?", "defer.", `\bdefer\b`},
			{"Which built-in function adds elements to a slice?", "append: s = append(s, x).", `\bappend\b`},
			{"Which built-in function returns the capacity of a slice?", "cap.", `\bcap\b`},
			{"How do I declare and assign x to 1 inside a Go function, in the short form?", "x := 1", `x := 1`},
			{"Which command formats Go source files?", "gofmt (or go fmt for a whole package).", `fmt`},
		})
		return kw[0], kw[1], kw[2]
	case 5:
		a, b := between(r, 2, 99), between(r, 2, 99)
		return "What is " + itoa(a) + " + " + itoa(b) + "?", itoa(a+b) + ".", `\b` + itoa(a+b) + `\b`
	}
	talk := pick(r, [][2]string{
		{"Thanks, that's all for now.", "You're welcome."},
		{"Hello! What can you do?", "I can read, search and edit the files of this repository and run commands such as its tests. Tell me what to do."},
		{"Please answer briefly from now on.", "OK, I will keep my answers short."},
		{"Do you need to run anything to tell me what 2 + 2 is?", "No: 2 + 2 is 4."},
	})
	return talk[0], talk[1], ""
}
