package main

import (
	"math/rand/v2"
	"strings"
)

// Fillers are functions without a bug, each with a passing test: they
// make files longer and give the tasks code to read past and leave alone.
// Each draws its names and, where Go allows two ways, its style.
var fillerMakers = []func(r *rand.Rand) bug{absFiller, clampFiller, containsFiller, minFiller, evenFiller, averageFiller, zerosFiller, doubleFiller, signFiller, indexFiller}

// filler is a correct function with a test of one call.
func filler(fn, doc, sig, body, args, shown, want string) bug {
	test, _ := callTest(fn, args, shown, want, want)
	return bug{fn: fn, src: "// " + doc + "\nfunc " + fn + sig + " {\n" + body + "\n}", testName: "Test" + fn, test: test}
}

func absFiller(r *rand.Rand) bug {
	x := -between(r, 2, 40)
	return filler("Abs", "Abs returns the absolute value of x.", "(x int) int", "\tif x < 0 {\n\t\treturn -x\n\t}\n\treturn x", itoa(x), itoa(x), itoa(-x))
}

func clampFiller(r *rand.Rand) bug {
	v := pick(r, []string{"v", "x", "n"})
	lo, hi := between(r, 0, 5), between(r, 10, 20)
	return filler("Clamp", "Clamp limits "+v+" to [lo, hi].", "("+v+", lo, hi int) int",
		"\tif "+v+" < lo {\n\t\treturn lo\n\t}\n\tif "+v+" > hi {\n\t\treturn hi\n\t}\n\treturn "+v,
		itoa(hi+7)+", "+itoa(lo)+", "+itoa(hi), itoa(hi+7)+", "+itoa(lo)+", "+itoa(hi), itoa(hi))
}

func containsFiller(r *rand.Rand) bug {
	v := pick(r, sliceVars)
	xs := distinct(r, 3, 1, 30)
	body := "\tfor _, x := range " + v + " {\n\t\tif x == want {\n\t\t\treturn true\n\t\t}\n\t}\n\treturn false"
	if r.IntN(2) == 0 {
		body = "\tfor i := 0; i < len(" + v + "); i++ {\n\t\tif " + v + "[i] == want {\n\t\t\treturn true\n\t\t}\n\t}\n\treturn false"
	}
	return filler("Contains", "Contains reports whether "+v+" holds want.", "("+v+" []int, want int) bool", body,
		"[]int{"+goList(xs)+"}, "+itoa(xs[1]), fmtList(xs)+", "+itoa(xs[1]), "true")
}

func minFiller(r *rand.Rand) bug {
	a, b := distinct(r, 2, 1, 60)[0], between(r, 61, 99)
	return filler("Min", "Min returns the smaller of a and b.", "(a, b int) int", "\tif a < b {\n\t\treturn a\n\t}\n\treturn b", itoa(a)+", "+itoa(b), itoa(a)+", "+itoa(b), itoa(a))
}

func evenFiller(r *rand.Rand) bug {
	n := 2 * between(r, 1, 40)
	return filler("IsEven", "IsEven reports whether n is even.", "(n int) bool", "\treturn n%2 == 0", itoa(n), itoa(n), "true")
}

func averageFiller(r *rand.Rand) bug {
	v := pick(r, sliceVars)
	a := between(r, 1, 20)
	xs := []int{a, a + 2, a + 4}
	body := "\tif len(" + v + ") == 0 {\n\t\treturn 0\n\t}\n\ts := 0\n\tfor _, x := range " + v + " {\n\t\ts += x\n\t}\n\treturn s / len(" + v + ")"
	return filler("Average", "Average returns the mean of "+v+", rounded down, or 0 for none.", "("+v+" []int) int", body,
		"[]int{"+goList(xs)+"}", fmtList(xs), itoa(a+2))
}

func zerosFiller(r *rand.Rand) bug {
	v := pick(r, sliceVars)
	return filler("CountZeros", "CountZeros counts the zeros of "+v+".", "("+v+" []int) int",
		"\tn := 0\n\tfor _, x := range "+v+" {\n\t\tif x == 0 {\n\t\t\tn++\n\t\t}\n\t}\n\treturn n", "[]int{0, 4, 0}", "[0 4 0]", "2")
}

func doubleFiller(r *rand.Rand) bug {
	n := between(r, 2, 50)
	return filler("Double", "Double returns twice n.", "(n int) int", "\treturn 2 * n", itoa(n), itoa(n), itoa(2*n))
}

func signFiller(r *rand.Rand) bug {
	n := -between(r, 1, 30)
	body := "\tswitch {\n\tcase n > 0:\n\t\treturn 1\n\tcase n < 0:\n\t\treturn -1\n\t}\n\treturn 0"
	return filler("Sign", "Sign returns 1, -1 or 0 as n is positive, negative or zero.", "(n int) int", body, itoa(n), itoa(n), "-1")
}

func indexFiller(r *rand.Rand) bug {
	v := pick(r, sliceVars)
	xs := distinct(r, 4, 1, 40)
	body := "\tfor i, x := range " + v + " {\n\t\tif x == want {\n\t\t\treturn i\n\t\t}\n\t}\n\treturn -1"
	return filler("IndexOf", "IndexOf returns the index of want in "+v+", or -1.", "("+v+" []int, want int) int", body,
		"[]int{"+goList(xs)+"}, "+itoa(xs[2]), fmtList(xs)+", "+itoa(xs[2]), "2")
}

// lower is s with its first letter in lower case.
func lower(s string) string { return strings.ToLower(s[:1]) + s[1:] }
