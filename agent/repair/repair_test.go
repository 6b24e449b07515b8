package repair

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/internal/golden"
)

// example4Inputs are the eight inputs of seed 000 Example 4.
var example4Inputs = []string{
	"{\"path\": \"pom.xml\",}",
	"{'path': 'src/Main.java'}",
	"{\"path\": \"A.java\", \"new_string\": \"int a;\n\tint b;\"}",
	"{\"command\": \"mvn -q test\", \"verbose\": True}",
	"Sure: {\"path\": \"pom.xml\"} I will read it now.",
	"{\"path\": \"src/Ma",
	"{\"path\": \"A.java\", \"old_string\": \"int a;\", \"new_string\":",
	"path=pom.xml",
}

// TestSeedExample4 prints what the seed's JsonRepair prints for its eight
// inputs and compares it with the seed's output, copied verbatim.
func TestSeedExample4(t *testing.T) {
	var out strings.Builder
	for _, in := range example4Inputs {
		fmt.Fprintf(&out, "in:      %s\n", strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(in))
		r, ok := Repair(in)
		if !ok {
			out.WriteString("result:  no JSON object, nothing to repair\n\n")
			continue
		}
		parses := "still invalid"
		if json.Valid([]byte(r.JSON)) {
			parses = "parses"
		}
		fmt.Fprintf(&out, "out:     %s  (%s)\n", r.JSON, parses)
		fmt.Fprintf(&out, "repairs: [%s]\n\n", strings.Join(r.Repairs, ", "))
	}
	golden.Seed(t, "example4.txt", out.String())
}

func TestRepair(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Result
	}{
		{"valid object untouched", `{"a": [1, {"b": null}], "c": "x"}`, Result{JSON: `{"a": [1, {"b": null}], "c": "x"}`}},
		{"trailing comma in an array", `{"a": [1, 2, ]}`, Result{JSON: `{"a": [1, 2]}`, Repairs: []string{TrailingComma}}},
		{"double quote inside single quotes", `{'say': 'say "hi"'}`, Result{JSON: `{"say": "say \"hi\""}`, Repairs: []string{SingleQuotes}}},
		{"escaped single quote", `{'s': 'it\'s'}`, Result{JSON: `{"s": "it's"}`, Repairs: []string{SingleQuotes}}},
		{"None inside a string stays", `{"s": "None of the tests", "v": None}`, Result{JSON: `{"s": "None of the tests", "v": null}`, Repairs: []string{"Python literal None"}}},
		{"False", `{"v": False}`, Result{JSON: `{"v": false}`, Repairs: []string{"Python literal False"}}},
		{"literal inside a word stays", `{"v": NoneSuch}`, Result{JSON: `{"v": NoneSuch}`}},
		{"carriage return", "{\"s\": \"a\rb\"}", Result{JSON: `{"s": "a\u000db"}`, Repairs: []string{RawControl}}},
		{"invalid escape", `{"p": "C:\dir"}`, Result{JSON: `{"p": "C:\\dir"}`, Repairs: []string{InvalidEscape}}},
		{"mismatched bracket", `{"a": [1, 2}`, Result{JSON: `{"a": [1, 2]}`, Repairs: []string{BracketClosed}}},
		{"stray bracket", `{"a": 1]}`, Result{JSON: `{"a": 1}`, Repairs: []string{BracketClosed}}},
		{"nested truncation", `{"a": {"b": [1, 2,`, Result{JSON: `{"a": {"b": [1, 2]}}`, Repairs: []string{TextAround, Truncated}, Truncated: true}},
		{"cut after a backslash", `{"a": "x\`, Result{JSON: `{"a": "x"}`, Repairs: []string{TextAround, Truncated}, Truncated: true}},
		{"only the first object", `{"a": 1} {"b": 2}`, Result{JSON: `{"a": 1}`, Repairs: []string{TextAround}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Repair(tt.in)
			if !ok {
				t.Fatalf("Repair(%q) found no object", tt.in)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Repair(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// FuzzRepair: Repair never panics; a valid object comes back unchanged
// and without repairs; a repair that gives valid JSON is a fixed point.
func FuzzRepair(f *testing.F) {
	for _, in := range example4Inputs {
		f.Add(in)
	}
	f.Add(`{"a": [1, {"b": 'c'}], "d": True,}`)
	f.Add(`{"a": "\u00e9\\", "b": [}`)
	f.Fuzz(func(t *testing.T, in string) {
		r, ok := Repair(in)
		if !ok {
			return
		}
		if strings.HasPrefix(in, "{") && json.Valid([]byte(in)) {
			if r.JSON != strings.TrimRight(in, " \t\r\n") || len(r.Repairs) != 0 {
				t.Fatalf("Repair(%q) = %q %v; a valid object needs no repair", in, r.JSON, r.Repairs)
			}
		}
		if json.Valid([]byte(r.JSON)) {
			again, _ := Repair(r.JSON)
			if again.JSON != r.JSON || len(again.Repairs) != 0 {
				t.Fatalf("Repair(%q) = %q, but Repair of that = %q %v", in, r.JSON, again.JSON, again.Repairs)
			}
		}
	})
}
