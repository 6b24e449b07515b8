package lint

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/golden"
)

// tool builds a definition as seed 000 Example 7's ToolLint.tool does, by
// concatenation, so that the sizes come out to the seed's characters.
func tool(name, description, properties, required string) string {
	return `{"type":"function","function":{"name":"` + name + `","description":"` + description +
		`","parameters":{"type":"object","properties":{` + properties + `},"required":[` + required + `]}}}`
}

const pathParam = `"path":{"type":"string","description":"File path relative to the workspace root"}`

// largeSet and smallSet are the two tool sets of seed 000 Example 7.
var (
	largeSet = []string{
		tool("read_file", "Read a file", `"path":{"type":"string"}`, `"path"`),
		tool("read_files", "Read several files at once", `"paths":{"type":"array","items":{"type":"string"}}`, `"paths"`),
		tool("view_file", "Show a file with line numbers", pathParam+`,"start":{"type":"integer"},"end":{"type":"integer"},"context":{"type":"integer"}`, `"path"`),
		tool("edit_file", "Edit a file", pathParam+`,"edit":{"type":"object"}`, `"path","edit"`),
		tool("write_file", "Create or overwrite a file with the given content", pathParam+`,"content":{"type":"string"}`, `"path","content"`),
		tool("run_tests", "Run tests", `"pattern":{"type":"string"}`, ``),
		tool("run_command", "Run a shell command in the workspace", `"command":{"type":"string"}`, `"command"`),
		tool("search_code", "Search code", `"query":{"type":"string"}`, `"query"`),
	}
	smallSet = []string{
		tool("read_file", "Read a text file and return numbered lines", pathParam, `"path"`),
		tool("edit_file", "Replace old_string with new_string in one file; old_string must occur exactly once",
			pathParam+`,"old_string":{"type":"string","description":"Exact text to replace"},"new_string":{"type":"string","description":"Replacement text"}`,
			`"path","old_string","new_string"`),
		tool("shell", "Run a bash command in the workspace root and return exit code and output",
			`"command":{"type":"string","description":"The command line, for example mvn -q test"}`, `"command"`),
		tool("grep", "Search files for a regular expression and return matching lines with paths",
			`"pattern":{"type":"string","description":"Java regular expression"}`, `"pattern"`),
	}
)

func parse(t testing.TB, defs []string) []chat.Tool {
	t.Helper()
	tools, err := chat.ParseTools([]byte("[" + strings.Join(defs, ",") + "]"))
	if err != nil {
		t.Fatal(err)
	}
	return tools
}

// TestSeedExample7 lints the seed's two tool sets and compares the
// report with the seed's output, copied verbatim.
func TestSeedExample7(t *testing.T) {
	var out strings.Builder
	for _, set := range []struct {
		name string
		defs []string
	}{{"large", largeSet}, {"small", smallSet}} {
		tools := parse(t, set.defs)
		findings := Linter{}.Lint(tools)
		fmt.Fprintf(&out, "%s set: %v, %d findings\n", set.name, Measure(tools), len(findings))
		for _, f := range findings {
			fmt.Fprintf(&out, "  %v\n", f)
		}
	}
	golden.Seed(t, "example7.txt", out.String())
}

// TestSchemaRules: seed 003's rules, on the seed's small set (which has
// required strings without minLength) and on tools made to break them.
func TestSchemaRules(t *testing.T) {
	tests := []struct {
		name string
		defs []string
		want []string
	}{
		{"small set of seed 000", smallSet, []string{
			"read_file.path: required string without minLength 1; an empty string passes",
			"edit_file.path: required string without minLength 1; an empty string passes",
			"edit_file.old_string: required string without minLength 1; an empty string passes",
			"edit_file.new_string: required string without minLength 1; an empty string passes",
			"shell.command: required string without minLength 1; an empty string passes",
			"grep.pattern: required string without minLength 1; an empty string passes",
		}},
		{"clean", []string{tool("get_weather", "Get the weather for one city.",
			`"city":{"type":"string","description":"City name, like Paris","minLength":1},"units":{"type":"string","description":"metric or imperial"}`, `"city"`)}, nil},
		{"no parameters", []string{tool("now", "Return the current time of day", ``, ``)}, []string{
			"now: no parameters; give every tool at least one real parameter",
		}},
		{"required after optional", []string{tool("get_weather", "Get the weather for one city.",
			`"units":{"type":"string","description":"metric or imperial"},"city":{"type":"string","description":"City name","minLength":1}`, `"city"`)}, []string{
			"get_weather.city: required, listed after the optional units; list required parameters first",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range (Linter{Schema: true}).Lint(parse(t, tt.defs)) {
				if f.Rule == RequiredLate || f.Rule == NoParameters || f.Rule == EmptyString {
					got = append(got, f.String())
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Lint mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestThresholds(t *testing.T) {
	tools := parse(t, largeSet)
	got := Linter{MinDescription: 5, MaxOptional: 3}.Lint(tools)
	for _, f := range got {
		if f.Rule == ShortDescription || f.Rule == ManyOptional {
			t.Errorf("Lint with MinDescription 5, MaxOptional 3 found %v", f)
		}
	}
	if n := len(got); n != 13 {
		t.Errorf("Lint found %d, want the 18 of the seed less 4 short descriptions and 1 optional count", n)
	}
}

// TestSameVerbMCP: an MCP server's tools share their mcp__SERVER__
// prefix, not a verb; their own names are compared.
func TestSameVerbMCP(t *testing.T) {
	def := func(name string) string {
		return `{"type": "function", "function": {"name": "` + name + `", "description": "Does one thing to one file of the project.", "parameters": {"type": "object", "properties": {}}}}`
	}
	tools := parse(t, []string{def("mcp__docs__search"), def("mcp__docs__fetch_page"), def("mcp__git__fetch_log")})
	var same []string
	for _, f := range (Linter{}).Lint(tools) {
		if f.Rule == SameVerb {
			same = append(same, f.Tool+": "+f.Message)
		}
	}
	if want := []string{"mcp__git__fetch_log: same verb as mcp__docs__fetch_page"}; !slices.Equal(same, want) {
		t.Errorf("same-verb findings %q, want %q", same, want)
	}
}

// FuzzLint: Lint and Measure never panic on any tools array ParseTools
// accepts.
func FuzzLint(f *testing.F) {
	f.Add("[" + strings.Join(largeSet, ",") + "]")
	f.Add("[" + strings.Join(smallSet, ",") + "]")
	f.Add(`[{"function": {"name": "x", "parameters": {"properties": {"a": 1, "b": {"type": ["string"]}}, "required": "a"}}}]`)
	f.Fuzz(func(t *testing.T, data string) {
		tools, err := chat.ParseTools([]byte(data))
		if err != nil {
			return
		}
		Linter{Schema: true}.Lint(tools)
		Measure(tools)
	})
}

// TestSeed004Example2 measures seed 004 Example 2's request: its tool is
// the seed's pretty-printed definition (read_file.json, copied from the
// seed's output), sent compact with the seed's question. The body and the
// size line are the seed's last two printed lines, verbatim.
func TestSeed004Example2(t *testing.T) {
	def, err := os.ReadFile(golden.Path(t, "read_file.json"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Request(parse(t, []string{string(def)}), "What is in pom.xml?")
	if err != nil {
		t.Fatal(err)
	}
	golden.Seed(t, "example2.txt", r.Body+"\n"+r.String()+"\n")
}

// TestRequest: the size line of several tools, a question that JSON
// must escape, and characters counted as code points.
func TestRequest(t *testing.T) {
	tools := parse(t, smallSet)
	r, err := Request(tools, `Is "<é>" in pom.xml?`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Body, `"content":"Is \"<é>\" in pom.xml?"`) {
		t.Errorf("Request body %s: the question is not as JSON writes it", r.Body)
	}
	// The small set is 1283 characters with the three commas between
	// its tools (Measure); the request holds the same.
	if want := 1283 - 3; r.ToolChars != want || len(r.PerTool) != 4 || r.Chars != len(r.Body)-1 {
		t.Errorf("Request = %d body (%d bytes), %d tools %v; want tools %d and é one character", r.Chars, len(r.Body), r.ToolChars, r.PerTool, want)
	}
	if got, want := r.String(), fmt.Sprintf("request body: %d characters, of which the 4 tools are 1280", r.Chars); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

// TestGrammarRules: seed 003's advice for schemas ("Do not use huge
// maxLength values", "Avoid deep nesting", keep the grammar small), each
// on its own tool built around the seed's get_weather. A maxLength above
// the grammar's repetition limit gets the compiler's own note; 2000, the
// limit itself, compiles exactly but expands past the size bound.
func TestGrammarRules(t *testing.T) {
	weather := func(extra string) []string {
		return []string{tool("get_weather", "Get the weather for one city.",
			`"city":{"type":"string","description":"City name, like Paris","minLength":1}`+extra, `"city"`)}
	}
	obj := func(name, props string) string {
		return `"` + name + `":{"type":"object","description":"d","properties":{` + props + `}}`
	}
	var enum []string
	for i := range 400 {
		enum = append(enum, fmt.Sprintf(`"choice-%d"`, i))
	}
	tests := []struct {
		name string
		defs []string
		want []string
	}{
		{"seed 003's tool", weather(""), nil},
		{"maxLength 524288", weather(`,"notes":{"type":"string","description":"d","maxLength":524288}`), []string{
			"max_length get_weather.notes: maxLength 524288 is above the grammar limit of 2000: the grammar allows any length, validate the arguments",
		}},
		{"maxLength 2000", weather(`,"notes":{"type":"string","description":"d","maxLength":2000}`), []string{
			"large_grammar get_weather: its grammar has 8103 elements once llama.cpp expands the repetitions, more than 4096; lower maxLength and maxItems, shorten enums, and check them in code",
		}},
		{"maxLength 500", weather(`,"notes":{"type":"string","description":"d","maxLength":500}`), nil},
		{"nested maxLength", weather(`,` + obj("a", obj("b", `"c":{"type":"string","maxLength":3000}`))), []string{
			"max_length get_weather.a.b.c: maxLength 3000 is above the grammar limit of 2000: the grammar allows any length, validate the arguments",
		}},
		{"three objects deep", weather(`,` + obj("a", obj("b", obj("c", `"d":{"type":"string"}`)))), []string{
			"deep_nesting get_weather.a.b.c: nested 3 levels deep, more than 2; flatten it into parameters of the tool",
		}},
		{"an array of objects", weather(`,"days":{"type":"array","description":"d","items":{"type":"object","properties":{"day":{"type":"string"}}}}`), nil},
		{"an object in an array of objects", weather(`,"days":{"type":"array","description":"d","items":{"type":"object","properties":{` + obj("hours", `"h":{"type":"integer"}`) + `}}}`), []string{
			"deep_nesting get_weather.days[].hours: nested 3 levels deep, more than 2; flatten it into parameters of the tool",
		}},
		{"a recursive $ref", []string{`{"type":"function","function":{"name":"tree","description":"Walk a tree of nodes and return it.",` +
			`"parameters":{"type":"object","properties":{"root":{"$ref":"#/$defs/node","description":"d"}},"required":["root"],` +
			`"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}}}`}, []string{
			"deep_nesting tree.root.kids[]: nested 3 levels deep, more than 2; flatten it into parameters of the tool",
		}},
		{"a relaxed constraint", weather(`,"when":{"type":"string","description":"d","format":"email"}`), []string{
			`grammar_relaxed get_weather.when: format "email" is not enforced by the grammar`,
		}},
		{"a long enum", weather(`,"choice":{"type":"string","description":"d","enum":[` + strings.Join(enum, ",") + `]}`), []string{
			"large_grammar get_weather: its grammar has 5190 elements once llama.cpp expands the repetitions, more than 4096; lower maxLength and maxItems, shorten enums, and check them in code",
		}},
		{"no grammar", weather(`,"n":{"type":"integer","description":"d","minimum":5,"maximum":1}`), []string{
			"grammar_error get_weather: the schema does not compile to a grammar: /properties/n: unsupported schema: minimum 5 is above maximum 1: no integer fits",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, f := range (Linter{Schema: true}).Lint(parse(t, tt.defs)) {
				switch f.Rule {
				case MaxLength, DeepNesting, Relaxed, LargeGrammar, BadSchema:
					got = append(got, string(f.Rule)+" "+f.String())
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Lint mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
