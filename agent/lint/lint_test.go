package lint

import (
	"fmt"
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
