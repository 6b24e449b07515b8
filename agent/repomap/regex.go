package repomap

import (
	"regexp"
	"slices"
	"strings"
)

// The extractors of the languages other than Go are regular expressions,
// a documented fallback: tree-sitter's Go bindings
// (github.com/tree-sitter/go-tree-sitter, github.com/smacker/go-tree-sitter)
// use cgo, which only llama/ may, and the pure-Go port on the module proxy
// is not to be used (part of it is not open source). Each pattern finds a
// declaration's header at the start of a line; like any line pattern,
// they miss what a parser would catch (annotations on their own line,
// generic methods with <T> before the return type, constructors,
// declarations split over lines in odd places), which is the price of a
// map with no parser: a table of contents, not a compiler.
var extractors = map[string]func(src string) []Decl{
	"java":       extractJava,
	"python":     extractPython,
	"javascript": extractJS,
	"typescript": extractJS,
	"rust":       extractRust,
	"c":          extractC,
}

// Java: the patterns ported from Java regular expressions (see the
// package doc). javaType is a type declaration, its record components in
// group 3. javaMethod is a non-private method header ending in { or ;
// (interface methods end in ;). The originals' negative lookahead (no
// private, class, interface, record, enum, return or new where the return
// type goes) and possessive modifier group (a modifier is never taken
// back as the return type, so a constructor does not match) are checks in
// javaMethodOK, since RE2 has neither.
var (
	javaType = regexp.MustCompile(`\A\s*(?:(?:public|protected|private|static|final|abstract|sealed)\s+)*` +
		`(class|interface|record|enum)\s+(\w+)(\([^)]*\))?`)
	javaMethod = regexp.MustCompile(`\A\s*((?:(?:public|protected|private|static|default|abstract|final)\s+)*)` +
		`([\w.]+(?:<[^()]*>)?(?:\[\])*)\s+(\w+)\(([^)]*)\)[^;{]*[;{]`)
	javaNotAType = []string{"private", "class", "interface", "record", "enum", "return", "new",
		"public", "protected", "static", "default", "abstract", "final", "else", "throw"}
)

func javaMethodOK(src string, m []int) bool {
	return !strings.Contains(group(src, m, 1), "private") && !slices.Contains(javaNotAType, group(src, m, 2))
}

func extractJava(src string) []Decl {
	var out []Decl
	scanLines(src, javaType, nil, func(m []int) {
		out = append(out, Decl{Depth: 1, Text: group(src, m, 1) + " " + group(src, m, 2) + group(src, m, 3), Name: group(src, m, 2), Offset: m[2]})
	})
	scanLines(src, javaMethod, javaMethodOK, func(m []int) {
		text := strings.TrimSpace(group(src, m, 2)) + " " + group(src, m, 3) + "(" + squeeze(group(src, m, 4)) + ")"
		out = append(out, Decl{Depth: 2, Text: text, Name: group(src, m, 3), Offset: m[6]})
	})
	return out
}

// Python: classes and functions, nested ones as members.
var pyDef = regexp.MustCompile(`\A([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)[ \t]*(\([^)]*\))?`)

func extractPython(src string) []Decl {
	var out []Decl
	scanLines(src, pyDef, nil, func(m []int) {
		depth := 1
		if group(src, m, 1) != "" {
			depth = 2
		}
		out = append(out, Decl{Depth: depth, Text: group(src, m, 2) + " " + group(src, m, 3) + squeeze(group(src, m, 4)), Name: group(src, m, 3), Offset: m[6]})
	})
	return out
}

// JavaScript and TypeScript: classes, interfaces, enums and type aliases;
// functions; arrow functions bound to a name; indented methods.
var (
	jsType   = regexp.MustCompile(`\A[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?(class|interface|enum|type)[ \t]+(\w+)`)
	jsFunc   = regexp.MustCompile(`\A[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:async[ \t]+)?function[ \t]*\*?[ \t]*(\w+)[ \t]*(?:<[^>(]*>)?(\([^)]*\))`)
	jsArrow  = regexp.MustCompile(`\A[ \t]*(?:export[ \t]+)?(?:const|let|var)[ \t]+(\w+)[ \t]*(?::[^=]+)?=[ \t]*(?:async[ \t]+)?(\([^)]*\)|\w+)[ \t]*(?::[^=]+)?=>`)
	jsMethod = regexp.MustCompile(`\A[ \t]+(?:(?:public|private|protected|static|async|readonly|override|get|set)[ \t]+)*(\w+)[ \t]*(?:<[^>(]*>)?(\([^)]*\))[^;{=]*\{`)
	jsNotA   = []string{"if", "for", "while", "switch", "catch", "function", "return", "with", "constructor"}
)

func extractJS(src string) []Decl {
	var out []Decl
	scanLines(src, jsType, nil, func(m []int) {
		out = append(out, Decl{Depth: 1, Text: group(src, m, 1) + " " + group(src, m, 2), Name: group(src, m, 2), Offset: m[4]})
	})
	scanLines(src, jsFunc, nil, func(m []int) {
		out = append(out, Decl{Depth: 1, Text: "function " + group(src, m, 1) + squeeze(group(src, m, 2)), Name: group(src, m, 1), Offset: m[2]})
	})
	scanLines(src, jsArrow, nil, func(m []int) {
		out = append(out, Decl{Depth: 1, Text: group(src, m, 1) + " = " + squeeze(group(src, m, 2)) + " =>", Name: group(src, m, 1), Offset: m[2]})
	})
	scanLines(src, jsMethod, func(src string, m []int) bool { return !slices.Contains(jsNotA, group(src, m, 1)) }, func(m []int) {
		out = append(out, Decl{Depth: 2, Text: group(src, m, 1) + squeeze(group(src, m, 2)), Name: group(src, m, 1), Offset: m[2]})
	})
	return out
}

// Rust: functions (indented ones, in impl and trait blocks, as members),
// types, traits, modules and impl blocks.
var (
	rustFn   = regexp.MustCompile(`\A([ \t]*)(?:pub(?:\([^)]*\))?[ \t]+)?(?:const[ \t]+)?(?:async[ \t]+)?(?:unsafe[ \t]+)?(?:extern[ \t]+"[^"]*"[ \t]+)?fn[ \t]+(\w+)[ \t]*(?:<[^(]*?>)?(\([^)]*\))`)
	rustType = regexp.MustCompile(`\A[ \t]*(?:pub(?:\([^)]*\))?[ \t]+)?(struct|enum|trait|type|union|mod)[ \t]+(\w+)`)
	rustImpl = regexp.MustCompile(`\Aimpl(?:<[^>{]*>)?[ \t]+([^{;\n]+?)[ \t]*(?:where[^{]*)?\{`)
)

func extractRust(src string) []Decl {
	var out []Decl
	scanLines(src, rustFn, nil, func(m []int) {
		depth := 1
		if group(src, m, 1) != "" {
			depth = 2
		}
		out = append(out, Decl{Depth: depth, Text: "fn " + group(src, m, 2) + squeeze(group(src, m, 3)), Name: group(src, m, 2), Offset: m[4]})
	})
	scanLines(src, rustType, nil, func(m []int) {
		out = append(out, Decl{Depth: 1, Text: group(src, m, 1) + " " + group(src, m, 2), Name: group(src, m, 2), Offset: m[4]})
	})
	scanLines(src, rustImpl, nil, func(m []int) {
		out = append(out, Decl{Depth: 1, Text: "impl " + squeeze(group(src, m, 1)), Offset: m[2]})
	})
	return out
}

// C: function definitions and prototypes that start at column 0, struct,
// enum and union definitions, and macros.
var (
	cFunc   = regexp.MustCompile(`\A([A-Za-z_][\w \t*]*?[ \t*])(\w+)[ \t]*\(([^;{)]*)\)[ \t\n]*[{;]`)
	cType   = regexp.MustCompile(`\A(?:typedef[ \t]+)?(struct|enum|union)[ \t]+(\w+)[ \t\n]*\{`)
	cDefine = regexp.MustCompile(`\A#[ \t]*define[ \t]+(\w+)`)
	cNotA   = []string{"if", "while", "for", "switch", "return", "sizeof", "else"}
)

func extractC(src string) []Decl {
	var out []Decl
	scanLines(src, cFunc, func(src string, m []int) bool {
		return !slices.Contains(cNotA, group(src, m, 2)) && !strings.HasPrefix(group(src, m, 1), "return")
	}, func(m []int) {
		text := squeeze(group(src, m, 1)) + " " + group(src, m, 2) + "(" + squeeze(group(src, m, 3)) + ")"
		out = append(out, Decl{Depth: 1, Text: strings.Replace(text, "* ", "*", -1), Name: group(src, m, 2), Offset: m[4]})
	})
	scanLines(src, cType, nil, func(m []int) {
		out = append(out, Decl{Depth: 1, Text: group(src, m, 1) + " " + group(src, m, 2), Name: group(src, m, 2), Offset: m[4]})
	})
	scanLines(src, cDefine, nil, func(m []int) {
		out = append(out, Decl{Depth: 1, Text: "#define " + group(src, m, 1), Name: group(src, m, 1), Offset: m[2]})
	})
	return out
}
