package main

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// Ladders are functions of one case per threshold, 10 to 40 lines long
// (as many as an edit that copies may span at the window), whose bug is
// in every case: a fix or a rename rewrites the whole function, and the
// edit copies it from the file just read.

// levelBug is a switch of thresholds that compares with > where the
// doc says "from": a value exactly on a threshold gets the level below.
func levelBug(r *rand.Rand, e env) bug {
	fn := e.funcName(r, []string{"Level", "Grade", "Tier", "Rank", "Band"})
	v := e.varName(r, []string{"score", "points", "total", "marks", "value"})
	// 2k+7 lines from the doc comment to the closing brace.
	k := between(r, 2, max(2, min(16, (e.maxSpan()-7)/2)))
	ts := distinct(r, k, 1, 200)
	slices.Sort(ts)
	slices.Reverse(ts)
	labels := strings.Split("ABCDEFGHIJKLMNOPQ", "")[:k+1]
	body := func(op string) string {
		var b strings.Builder
		b.WriteString("func " + fn + "(" + v + " int) string {\n\tswitch {\n")
		for i, t := range ts {
			b.WriteString("\tcase " + v + " " + op + " " + itoa(t) + ":\n\t\treturn \"" + labels[i] + "\"\n")
		}
		b.WriteString("\tdefault:\n\t\treturn \"" + labels[k] + "\"\n\t}\n}")
		return b.String()
	}
	j := r.IntN(k)
	call := fn + "(" + itoa(ts[j]) + ")"
	test := "func Test" + fn + "(t *testing.T) {\n\tif got := " + call + "; got != \"" + labels[j] + "\" {\n" +
		"\t\tt.Errorf(\"" + call + " = %q, want " + labels[j] + "\", got)\n\t}\n}"
	failure := call + " = \"" + labels[j+1] + "\", want " + labels[j]
	return bug{kind: "off-by-one", fn: fn, param: v,
		src: "// " + fn + " returns the level " + v + " reaches: " + labels[0] + " from " + itoa(ts[0]) + " up, and so on.\nLINE",
		bad: body(">"), good: body(">="),
		guess: "case " + v + " > " + itoa(ts[0]+1) + ":", guessFix: "case " + v + " >= " + itoa(ts[0]+1) + ":",
		testName: "Test" + fn, test: test, failure: failure,
		symptom: "gives a " + v + " exactly on a threshold the level below",
		fixed:   "every case compared with >, so a " + v + " exactly on a threshold fell to the level below; they now use >="}
}

// feeBug is a chain of ifs of bands that compares with <= where each
// band ends before its limit: a value exactly on a limit gets the lower
// band's fee.
func feeBug(r *rand.Rand, e env) bug {
	fn := e.funcName(r, []string{"Fee", "Shipping", "Discount", "Surcharge", "Tax"})
	v := e.varName(r, []string{"amount", "total", "weight", "cents", "size"})
	// 3k+4 lines from the doc comment to the closing brace.
	k := between(r, 3, max(3, min(12, (e.maxSpan()-4)/3)))
	ts := distinct(r, k, 10, 500)
	slices.Sort(ts)
	fees := distinct(r, k+1, 1, 99)
	body := func(op string) string {
		var b strings.Builder
		b.WriteString("func " + fn + "(" + v + " int) int {\n")
		for i, t := range ts {
			b.WriteString("\tif " + v + " " + op + " " + itoa(t) + " {\n\t\treturn " + itoa(fees[i]) + "\n\t}\n")
		}
		b.WriteString("\treturn " + itoa(fees[k]) + "\n}")
		return b.String()
	}
	j := r.IntN(k)
	test, failure := callTest(fn, itoa(ts[j]), itoa(ts[j]), itoa(fees[j+1]), itoa(fees[j]))
	return bug{kind: "off-by-one", fn: fn, param: v,
		src: "// " + fn + " returns the " + lower(fn) + " for a " + v + ": " + itoa(fees[0]) + " below " + itoa(ts[0]) + ", and so on by band.\nLINE",
		bad: body("<="), good: body("<"),
		guess: "if " + v + " <= " + itoa(ts[0]+1) + " {", guessFix: "if " + v + " < " + itoa(ts[0]+1) + " {",
		testName: "Test" + fn, test: test, failure: failure,
		symptom: "charges the lower band for a " + v + " exactly on a band's limit",
		fixed:   "every band compared with <=, so a " + v + " exactly on a limit stayed in the band below; they now use <"}
}
