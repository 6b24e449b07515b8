package main

import (
	"fmt"
	"go/format"
	"math/rand/v2"
	"slices"
	"strings"
)

// bug is one function of a small Go package with a one-line bug, and the
// test that fails because of it.
type bug struct {
	kind     string // "off-by-one" or "wrong operator"
	fn       string // the function's name
	src      string // the function's source, with the line as "LINE"
	bad      string // the buggy line, without indentation
	good     string // its fix
	guess    string // a line the task suggests but the file does not hold
	guessFix string // guess, fixed
	testName string
	test     string // the test function's source
	failure  string // what the test prints against the buggy code
	symptom  string // what the user sees: "skips the first value"
	fixed    string // what the fix did, for the answer
	param    string // a parameter the function uses on several lines ("" if none)
}

// source is the function with its bug, or fixed.
func (b bug) source(buggy bool) string {
	if buggy {
		return strings.Replace(b.src, "LINE", b.bad, 1)
	}
	return strings.Replace(b.src, "LINE", b.good, 1)
}

// bugMaker makes one kind of bug. small says the function has a one-line
// body, so that it fits beside another in a file read whole.
type bugMaker struct {
	make  func(r *rand.Rand, e env) bug
	small bool
}

var bugMakers = []bugMaker{
	{sumBug, false}, {countBug, false}, {maxBug, false}, {rangeBug, false},
	{costBug, true}, {lastBug, true}, {ageBug, true},
	{levelBug, false}, {feeBug, false},
}

// The indices of the ladders in bugMakers.
const ladderLevel, ladderFee = 7, 8

// sliceTest is the test of a function of one []int.
func sliceTest(fn string, xs []int, want, got int) (test, failure string) {
	test = "func Test" + fn + "(t *testing.T) {\n" +
		"\tif got := " + fn + "([]int{" + goList(xs) + "}); got != " + itoa(want) + " {\n" +
		"\t\tt.Errorf(\"" + fn + "(" + fmtList(xs) + ") = %d, want " + itoa(want) + "\", got)\n\t}\n}"
	return test, fn + "(" + fmtList(xs) + ") = " + itoa(got) + ", want " + itoa(want)
}

// callTest is the test of a function called with args, which its
// message shows as shown.
func callTest(fn, args, shown string, want, got string) (test, failure string) {
	verb := "%d"
	if want == "true" || want == "false" {
		verb = "%v"
	}
	test = "func Test" + fn + "(t *testing.T) {\n" +
		"\tif got := " + fn + "(" + args + "); got != " + want + " {\n" +
		"\t\tt.Errorf(\"" + fn + "(" + shown + ") = " + verb + ", want " + want + "\", got)\n\t}\n}"
	return test, fn + "(" + shown + ") = " + got + ", want " + want
}

func sumBug(r *rand.Rand, e env) bug {
	fn := e.funcName(r, []string{"Sum", "Total", "AddAll"})
	vs := e.varNames(r, sliceVars, 2)
	v := vs[0]
	xs := distinct(r, 3, 1, 20)
	want := xs[0] + xs[1] + xs[2]
	test, failure := sliceTest(fn, xs, want, want-xs[0])
	loop := "for i := %d; i < len(" + v + "); i++ {"
	return bug{kind: "off-by-one", fn: fn,
		src: "// " + fn + " returns the sum of " + v + ".\nfunc " + fn + "(" + v + " []int) int {\n\ttotal := 0\n\tLINE\n\t\ttotal += " + v + "[i]\n\t}\n\treturn total\n}",
		bad: strings.Replace(loop, "%d", "1", 1), good: strings.Replace(loop, "%d", "0", 1),
		guess: "for i := 1; i < len(" + vs[1] + "); i++ {", guessFix: "for i := 0; i < len(" + vs[1] + "); i++ {",
		testName: "Test" + fn, test: test, failure: failure, param: v,
		symptom: "skips the first value", fixed: "the loop started at 1 and skipped the first value; it now starts at 0"}
}

func countBug(r *rand.Rand, e env) bug {
	fn := e.funcName(r, []string{"CountAbove", "CountOver", "NumAbove"})
	v := e.varName(r, sliceVars)
	limit := between(r, 5, 20)
	xs := []int{limit - 3, limit, limit + 2, limit + 6}
	r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
	test, failure := callTest(fn, "[]int{"+goList(xs)+"}, "+itoa(limit), fmtList(xs)+", "+itoa(limit), "2", "3")
	return bug{kind: "off-by-one", fn: fn,
		src: "// " + fn + " counts the values of " + v + " greater than limit.\nfunc " + fn + "(" + v + " []int, limit int) int {\n\tn := 0\n\tfor _, x := range " + v + " {\n\t\tLINE\n\t\t\tn++\n\t\t}\n\t}\n\treturn n\n}",
		bad: "if x >= limit {", good: "if x > limit {",
		guess: "if x >= threshold {", guessFix: "if x > threshold {",
		testName: "Test" + fn, test: test, failure: failure,
		param:   v,
		symptom: "also counts the values equal to limit", fixed: "it compared with >= and counted the values equal to limit; it now uses >"}
}

func maxBug(r *rand.Rand, e env) bug {
	fn := e.funcName(r, []string{"Max", "Largest", "Highest"})
	v := e.varName(r, sliceVars)
	xs := distinct(r, 4, 1, 50)
	want, got := slices.Max(xs), slices.Min(xs)
	test, failure := sliceTest(fn, xs, want, got)
	return bug{kind: "wrong operator", fn: fn,
		src: "// " + fn + " returns the largest value of " + v + ".\nfunc " + fn + "(" + v + " []int) int {\n\tm := " + v + "[0]\n\tfor _, x := range " + v + "[1:] {\n\t\tLINE\n\t\t\tm = x\n\t\t}\n\t}\n\treturn m\n}",
		bad: "if x < m {", good: "if x > m {",
		guess: "if x < max {", guessFix: "if x > max {",
		testName: "Test" + fn, test: test, failure: failure,
		param:   v,
		symptom: "returns the smallest value", fixed: "the comparison was <, so it kept the smallest value; it is now >"}
}

func rangeBug(r *rand.Rand, e env) bug {
	fn := e.funcName(r, []string{"SumRange", "SumBetween", "AddRange"})
	lo := between(r, 1, 6)
	hi := lo + between(r, 2, 6)
	want := (lo + hi) * (hi - lo + 1) / 2
	test, failure := callTest(fn, itoa(lo)+", "+itoa(hi), itoa(lo)+", "+itoa(hi), itoa(want), itoa(want-hi))
	loop := "for i := lo; i %s hi; i++ {"
	return bug{kind: "off-by-one", fn: fn,
		src: "// " + fn + " returns lo + (lo+1) + ... + hi.\nfunc " + fn + "(lo, hi int) int {\n\ts := 0\n\tLINE\n\t\ts += i\n\t}\n\treturn s\n}",
		bad: strings.Replace(loop, "%s", "<", 1), good: strings.Replace(loop, "%s", "<=", 1),
		guess: "for i := from; i < to; i++ {", guessFix: "for i := from; i <= to; i++ {",
		testName: "Test" + fn, test: test, failure: failure,
		symptom: "leaves out hi", fixed: "the loop stopped before hi; it now runs while i <= hi"}
}

func costBug(r *rand.Rand, e env) bug {
	fn := e.funcName(r, []string{"Cost", "Charge", "Price"})
	ps := pick(r, [][2]string{{"price", "qty"}, {"rate", "hours"}, {"unit", "count"}})
	if e.wide {
		ps = [2]string(e.varNames(r, nil, 2))
	}
	a, b := between(r, 3, 12), between(r, 3, 9)
	test, failure := callTest(fn, itoa(a)+", "+itoa(b), itoa(a)+", "+itoa(b), itoa(a*b), itoa(a+b))
	return bug{kind: "wrong operator", fn: fn,
		src: "// " + fn + " returns " + ps[0] + " times " + ps[1] + ".\nfunc " + fn + "(" + ps[0] + ", " + ps[1] + " int) int {\n\tLINE\n}",
		bad: "return " + ps[0] + " + " + ps[1], good: "return " + ps[0] + " * " + ps[1],
		guess: "return a + b", guessFix: "return a * b",
		testName: "Test" + fn, test: test, failure: failure,
		symptom: "adds instead of multiplying", fixed: "it added " + ps[0] + " and " + ps[1] + "; it now multiplies them"}
}

func lastBug(r *rand.Rand, e env) bug {
	fn := e.funcName(r, []string{"Last", "Final", "Newest"})
	vs := e.varNames(r, sliceVars, 2)
	xs := distinct(r, between(r, 3, 4), 1, 30)
	test, failure := sliceTest(fn, xs, xs[len(xs)-1], xs[len(xs)-2])
	idx := "return " + vs[0] + "[len(" + vs[0] + ")-%d]"
	return bug{kind: "off-by-one", fn: fn,
		src: "// " + fn + " returns the last value of " + vs[0] + ".\nfunc " + fn + "(" + vs[0] + " []int) int {\n\tLINE\n}",
		bad: strings.Replace(idx, "%d", "2", 1), good: strings.Replace(idx, "%d", "1", 1),
		guess: "return " + vs[1] + "[len(" + vs[1] + ")-2]", guessFix: "return " + vs[1] + "[len(" + vs[1] + ")-1]",
		testName: "Test" + fn, test: test, failure: failure,
		symptom: "returns the value before the last", fixed: "it indexed len-2, the value before the last; it now uses len-1"}
}

func ageBug(r *rand.Rand, e env) bug {
	fn, n := e.funcName(r, []string{"IsAdult", "CanVote", "CanDrive", "CanRent"}), pick(r, []int{16, 18, 21})
	test, failure := callTest(fn, itoa(n), itoa(n), "true", "false")
	return bug{kind: "off-by-one", fn: fn,
		src: "// " + fn + " reports whether age is at least " + itoa(n) + ".\nfunc " + fn + "(age int) bool {\n\tLINE\n}",
		bad: "return age > " + itoa(n), good: "return age >= " + itoa(n),
		guess: "return years > " + itoa(n), guessFix: "return years >= " + itoa(n),
		testName: "Test" + fn, test: test, failure: failure,
		symptom: "is false for exactly " + itoa(n), fixed: "it used >, so age " + itoa(n) + " was refused; it now uses >="}
}

// gofmt formats Go source as gofmt does; the generator's source is always
// valid Go, so an error is a bug.
func gofmt(src string) string {
	b, err := format.Source([]byte(src))
	if err != nil {
		panic(fmt.Sprintf("gentrain: generated Go does not parse: %v\n%s", err, src))
	}
	return string(b)
}

// lineWith returns the first line of src that starts with prefix once
// indentation is removed, without the indentation.
func lineWith(src, prefix string) string {
	for _, l := range strings.Split(src, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, prefix) {
			return l
		}
	}
	panic(fmt.Sprintf("gentrain: no line starts with %q in\n%s", prefix, src))
}
