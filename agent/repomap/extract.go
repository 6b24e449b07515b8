package repomap

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Decl is one declaration as the map shows it.
type Decl struct {
	// Depth is 1 for a top-level declaration, 2 for a member.
	Depth int `json:"depth"`
	// Text is the declaration's header: "class OrderService",
	// "Optional<Order> find(String id)", "func (m *Map) Render() string".
	Text string `json:"text"`
	// Name is the identifier it defines.
	Name string `json:"name"`
	// Offset is its byte offset in the source.
	Offset int `json:"-"`
}

// File is one source file's declarations and references.
type File struct {
	// Path is the path relative to the repository, with slashes.
	Path string `json:"path"`
	// Lang is the language: go, java, python, javascript, typescript,
	// rust or c.
	Lang string `json:"lang"`
	// Decls are the declarations, in source order.
	Decls []Decl `json:"decls"`
	// Refs counts the identifiers the file uses.
	Refs map[string]int `json:"-"`
	// Chars is the source's size in bytes.
	Chars int `json:"chars"`
}

// languages maps file extensions to languages.
var languages = map[string]string{
	".go": "go", ".java": "java", ".py": "python",
	".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
	".ts": "typescript", ".tsx": "typescript", ".mts": "typescript",
	".rs": "rust", ".c": "c", ".h": "c",
}

// Language returns the language of a path, or "" when the map does not
// read it.
func Language(path string) string { return languages[strings.ToLower(filepath.Ext(path))] }

// Extract reads a file's declarations and references. ok is false for a
// language the map does not read. Go is parsed with go/parser; the other
// languages with the regular expressions of their extractors.
func Extract(path string, src []byte) (f File, ok bool) {
	lang := Language(path)
	if lang == "" {
		return File{}, false
	}
	f = File{Path: filepath.ToSlash(path), Lang: lang, Chars: len(src)}
	if lang == "go" {
		f.Decls, f.Refs = extractGo(path, src)
		return f, true
	}
	f.Decls = extractors[lang](string(src))
	sort.SliceStable(f.Decls, func(i, j int) bool { return f.Decls[i].Offset < f.Decls[j].Offset })
	f.Refs = identifiers(string(src))
	return f, true
}

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// identifiers counts the identifier-like words of a source.
func identifiers(src string) map[string]int {
	refs := map[string]int{}
	for _, w := range identRE.FindAllString(src, -1) {
		refs[w]++
	}
	return refs
}

// scanWindow bounds one match attempt: a declaration's header is short,
// and the bound keeps a pattern like [^;{]* linear on a file without ;
// or {.
const scanWindow = 1000

// scanLines tries re, anchored, at the start of every line of src that
// the last accepted match did not cover, as Java's Matcher.find does with
// a ^ pattern in MULTILINE mode. accept rejects a match in code, which is
// how the lookaheads and possessive quantifiers of the ported Java
// patterns, which RE2 lacks, are written here: a rejected match lets the
// next line start be tried.
func scanLines(src string, re *regexp.Regexp, accept func(src string, m []int) bool, emit func(m []int)) {
	end := 0
	for p := 0; p < len(src); p++ {
		if p != 0 && src[p-1] != '\n' || p < end {
			continue
		}
		window := src[p:min(len(src), p+scanWindow)]
		m := re.FindStringSubmatchIndex(window)
		if m == nil {
			continue
		}
		for i := range m {
			if m[i] >= 0 {
				m[i] += p
			}
		}
		if accept != nil && !accept(src, m) {
			continue
		}
		emit(m)
		end = m[1]
	}
}

// group returns submatch i, or "".
func group(src string, m []int, i int) string {
	if 2*i+1 >= len(m) || m[2*i] < 0 {
		return ""
	}
	return src[m[2*i]:m[2*i+1]]
}

// squeeze collapses runs of white space into one space and trims.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }
