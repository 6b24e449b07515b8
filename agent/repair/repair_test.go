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

// result is a repaired object as the seed prints it.
type result struct {
	JSON      string   // the object as repaired
	Repairs   []string // each kind of repair made, once, in the order first made
	Truncated bool     // the text ended inside the object
}

// textAround is the seed's name for text before or after the object.
const textAround = "text around the object"

// repairFirst scans the first JSON object of text (from its first '{'),
// as the seed's JsonRepair does, and also names text around the object,
// which the seed does for a cut-off object's missing end too. It reports
// false when text has no '{'.
func repairFirst(text string) (result, bool) {
	start := strings.IndexByte(text, '{')
	if start < 0 {
		return result{}, false
	}
	var r result
	s := scan(text, start)
	if start > 0 || !strings.HasSuffix(strings.TrimSpace(text), "}") || strings.TrimSpace(text[s.end:]) != "" {
		r.Repairs = append(r.Repairs, textAround)
	}
	r.JSON, r.Truncated = s.out.String(), s.truncated
	for _, name := range s.repairs {
		r.Repairs = addOnce(r.Repairs, name)
	}
	return r, true
}

// TestSeedExample4 prints what the seed's JsonRepair prints for its eight
// inputs and compares it with the seed's output, copied verbatim.
func TestSeedExample4(t *testing.T) {
	var out strings.Builder
	for _, in := range example4Inputs {
		fmt.Fprintf(&out, "in:      %s\n", strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(in))
		r, ok := repairFirst(in)
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

func TestScan(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want result
	}{
		{"valid object untouched", `{"a": [1, {"b": null}], "c": "x"}`, result{JSON: `{"a": [1, {"b": null}], "c": "x"}`}},
		{"trailing comma in an array", `{"a": [1, 2, ]}`, result{JSON: `{"a": [1, 2]}`, Repairs: []string{TrailingComma}}},
		{"double quote inside single quotes", `{'say': 'say "hi"'}`, result{JSON: `{"say": "say \"hi\""}`, Repairs: []string{SingleQuotes}}},
		{"escaped single quote", `{'s': 'it\'s'}`, result{JSON: `{"s": "it's"}`, Repairs: []string{SingleQuotes}}},
		{"None inside a string stays", `{"s": "None of the tests", "v": None}`, result{JSON: `{"s": "None of the tests", "v": null}`, Repairs: []string{"Python literal None"}}},
		{"False", `{"v": False}`, result{JSON: `{"v": false}`, Repairs: []string{"Python literal False"}}},
		{"literal inside a word is a word", `{"v": NoneSuch}`, result{JSON: `{"v": "NoneSuch"}`, Repairs: []string{UnquotedValue}}},
		{"carriage return", "{\"s\": \"a\rb\"}", result{JSON: `{"s": "a\u000db"}`, Repairs: []string{RawControl}}},
		{"invalid escape", `{"p": "C:\dir"}`, result{JSON: `{"p": "C:\\dir"}`, Repairs: []string{InvalidEscape}}},
		{"mismatched bracket", `{"a": [1, 2}`, result{JSON: `{"a": [1, 2]}`, Repairs: []string{BracketClosed}}},
		{"stray bracket", `{"a": 1]}`, result{JSON: `{"a": 1}`, Repairs: []string{BracketClosed}}},
		{"nested truncation", `{"a": {"b": [1, 2,`, result{JSON: `{"a": {"b": [1, 2]}}`, Repairs: []string{textAround, Truncated}, Truncated: true}},
		{"cut after a backslash", `{"a": "x\`, result{JSON: `{"a": "x"}`, Repairs: []string{textAround, Truncated}, Truncated: true}},
		{"only the first object", `{"a": 1} {"b": 2}`, result{JSON: `{"a": 1}`, Repairs: []string{textAround}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := repairFirst(tt.in)
			if !ok {
				t.Fatalf("repairFirst(%q) found no object", tt.in)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("repairFirst(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// FuzzRepair: the scan never panics; a valid object comes back unchanged
// and without repairs; a repair that gives valid JSON is a fixed point.
func FuzzRepair(f *testing.F) {
	for _, in := range example4Inputs {
		f.Add(in)
	}
	f.Add(`{"a": [1, {"b": 'c'}], "d": True,}`)
	f.Add(`{"a": "\u00e9\\", "b": [}`)
	f.Fuzz(func(t *testing.T, in string) {
		r, ok := repairFirst(in)
		if !ok {
			return
		}
		if strings.HasPrefix(in, "{") && json.Valid([]byte(in)) {
			if r.JSON != strings.TrimRight(in, " \t\r\n") || len(r.Repairs) != 0 {
				t.Fatalf("repairFirst(%q) = %q %v; a valid object needs no repair", in, r.JSON, r.Repairs)
			}
		}
		if json.Valid([]byte(r.JSON)) {
			again, _ := repairFirst(r.JSON)
			if again.JSON != r.JSON || len(again.Repairs) != 0 {
				t.Fatalf("repairFirst(%q) = %q, but repairFirst of that = %q %v", in, r.JSON, again.JSON, again.Repairs)
			}
		}
	})
}
