package tools

import "testing"

// namesFiles is a package metrics of two files and a test, a package
// whose test already calls a function not yet written, and one that
// dot-imports.
var namesFiles = map[string]string{
	"count.go": `package metrics

import "strings"

// CountOver counts the values of prices greater than limit.
func CountOver(prices []int, limit int) int {
	n := 0
	for _, x := range prices {
		if x >= limit {
			n++
		}
	}
	_ = strings.TrimSpace("")
	return n
}
`,
	"last.go": "package metrics\n\n// Last returns the last value of prices.\nfunc Last(prices []int) int {\n\treturn prices[len(prices)-2]\n}\n",
	"count_test.go": `package metrics

import "testing"

func TestCountOver(t *testing.T) {
	if got := CountOver([]int{1, 2, 3}, 2); got != 1 {
		t.Errorf("CountOver = %d, want 1", got)
	}
}
`,
	"todo/todo_test.go": "package todo\n\nimport \"testing\"\n\nfunc TestSign(t *testing.T) {\n\tif Sign(-2) != -1 {\n\t\tt.Fail()\n\t}\n}\n",
	"todo/todo.go":      "package todo\n",
	"dot/dot.go":        "package dot\n\nimport . \"strings\"\n\nvar S = TrimSpace(\" a \")\n",
}

func TestEditDeclaredNames(t *testing.T) {
	runEditCases(t, namesFiles, []editCase{
		{"last.go", "return prices[len(prices)-2]", "if x > limit {\n\t\treturn 0\n\t}\n\treturn prices[len(prices)-1]",
			"edit_file: not written: last.go would use x (line 5), limit (line 5), declared nowhere in package metrics; go build would fail (undefined: x). " +
				"last.go is unchanged; use a declared name, or declare x first."},
		{"count.go", "func CountOver(prices []int, limit int) int {", "func CountOver(prices []int, max int) int {",
			"edit_file: not written: count.go would use limit (line 9), declared nowhere in package metrics; go build would fail (undefined: limit). " +
				"count.go is unchanged; use a declared name, or declare limit first."},
		{"count.go", "n++", "n += prics[0]",
			"edit_file: not written: count.go would use prics (line 10), declared nowhere in package metrics; go build would fail (undefined: prics). " +
				"Declared near line 10: prices. count.go is unchanged; use a declared name, or declare prics first."},
		{"count.go", "return n", "return n + Lst(prices)",
			"edit_file: not written: count.go would use Lst (line 14), declared nowhere in package metrics; go build would fail (undefined: Lst). " +
				"Declared near line 14: Last. count.go is unchanged; use a declared name, or declare Lst first."},
		{"last.go", "return prices[len(prices)-2]", "return prices[len(prices)-1]", ""},
		{"last.go", "func Last(", "func Final(", ""},                                                   // other files may lose a name: a rename goes on
		{"count.go", "_ = strings.TrimSpace(\"\")", "_ = strings.Fields(\"\")\n\t_ = bytes.Index", ""}, // what an import holds is not checked
		{"count.go", "n := 0", "n := len(prices) - len(prices)", ""},
		{"todo/todo_test.go", "t.Fail()", "t.FailNow()", ""}, // Sign was undeclared before
		{"dot/dot.go", "TrimSpace", "TrimLeft", ""},          // a dot import: the check cannot tell
		{"count_test.go", "got := CountOver(", "got := CountOverAll(", "edit_file: not written: count_test.go would use CountOverAll (line 6), declared nowhere in package metrics; go build would fail (undefined: CountOverAll). " +
			"Declared near line 6: CountOver. count_test.go is unchanged; use a declared name, or declare CountOverAll first."},
	})
	ws := newWorkspace(t, namesFiles, Config{NoSyntaxCheck: true})
	if r := call(t, EditFile{}, ws, `{"path": "count.go", "old_string": "n++", "new_string": "n += prics[0]"}`); r.IsError {
		t.Errorf("NoSyntaxCheck: %q, want the edit made", r.Content)
	}
}

func TestWriteDeclaredNames(t *testing.T) {
	runWriteCases(t, namesFiles, []writeCase{
		{"price_test.go", "package metrics\n\nimport \"testing\"\n\nfunc TestPrice(t *testing.T) {\n\tif Price(1) != 1 {\n\t\tt.Fail()\n\t}\n}\n",
			"write_file: not written: price_test.go would use Price (line 6), declared nowhere in package metrics; go build would fail (undefined: Price). " +
				"price_test.go was not created; use a declared name, or declare Price first."},
		{"last_test.go", "package metrics\n\nimport \"testing\"\n\nfunc TestLast(t *testing.T) {\n\tif Last([]int{1, 2}) != 2 {\n\t\tt.Fail()\n\t}\n}\n", ""},
		{"ext_test.go", "package metrics_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/metrics\"\n)\n\nfunc TestLast(t *testing.T) {\n\t_ = metrics.Last\n}\n", ""},
		{"todo/sign.go", "package todo\n\n// Sign returns -1, 0 or 1.\nfunc Sign(n int) int {\n\tswitch {\n\tcase n < 0:\n\t\treturn -1\n\tcase n > 0:\n\t\treturn 1\n\t}\n\treturn 0\n}\n", ""},
		{"helper.go", "package metrics\n\n// Helper uses a name only a test declares.\nfunc Helper() { TestCountOver(nil) }\n",
			"write_file: not written: helper.go would use TestCountOver (line 4), declared nowhere in package metrics; go build would fail (undefined: TestCountOver). " +
				"Declared near line 4: CountOver. helper.go was not created; use a declared name, or declare TestCountOver first."},
		{"generic.go", "package metrics\n\n// Max returns the larger.\nfunc Max[T int | float64](a, b T) T {\n\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}\n\ntype pair struct{ a, b int }\n\nvar p = pair{a: 1, b: Max(1, 2)}\n", ""},
	})
}
