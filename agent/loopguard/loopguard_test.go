package loopguard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/golden"
)

type step struct{ id, name, args, result string }

// run prints one run of seed 000 Example 11's LoopDetection.
func run(out *strings.Builder, title string, steps []step) {
	fmt.Fprintln(out, title)
	var d Detector
	for _, s := range steps {
		call := chat.ToolCall{ID: s.id, Type: "function", Function: chat.FunctionCall{Name: s.name, Arguments: s.args}}
		v := d.Check(call, s.result)
		fmt.Fprintf(out, "  %-3s %-9s %-28s %-22s %s\n", s.id, s.name, s.args, s.result, v)
		if v == Warn {
			fmt.Fprintf(out, "       -> result gets a note: %q\n", Note)
		}
		if v == Stop {
			fmt.Fprintln(out, "       -> run stopped: repeated calls after a warning")
			return
		}
	}
	fmt.Fprintln(out, "  -> run finished normally")
}

const (
	pom     = `{"path": "pom.xml"}`
	mvnTest = `{"command": "mvn -q test"}`
	release = "<release>17</release>"
	failing = "exit 1, OrderTest:31"
)

// TestSeedExample11 replays the three runs of seed 000 Example 11 and
// compares the trace with the seed's output, copied verbatim.
func TestSeedExample11(t *testing.T) {
	var out strings.Builder
	run(&out, "1. one call three times, with different whitespace; the model changes course after the note", []step{
		{"c1", "read_file", pom, release},
		{"c2", "read_file", `{ "path":"pom.xml" }`, release},
		{"c3", "read_file", pom, release},
		{"c4", "edit_file", `{"path": "pom.xml", ...}`, "replaced 1 occurrence"},
		{"c5", "shell", mvnTest, "exit 0"},
	})
	run(&out, "2. a two-step cycle that continues after the note", []step{
		{"c1", "shell", mvnTest, failing}, {"c2", "read_file", pom, release},
		{"c3", "shell", mvnTest, failing}, {"c4", "read_file", pom, release},
		{"c5", "shell", mvnTest, failing}, {"c6", "read_file", pom, release},
	})
	run(&out, "3. the same command three times with different results is progress", []step{
		{"c1", "shell", mvnTest, "exit 1, 3 failures"}, {"c2", "shell", mvnTest, "exit 1, 1 failure"},
		{"c3", "shell", mvnTest, "exit 0"},
	})
	golden.Seed(t, "example11.txt", out.String())
}

func TestDetector(t *testing.T) {
	a, b, c := step{name: "a", args: "{}", result: "1"}, step{name: "b", args: "{}", result: "2"}, step{name: "c", args: "{}", result: "3"}
	d, e := step{name: "d", args: "{}", result: "4"}, step{name: "e", args: "{}", result: "5"}
	// The demo model read a missing file with other limits and offsets.
	missing := "read_file: shell: no such file"
	r1 := step{name: "read_file", args: `{"path": "shell"}`, result: missing}
	r2 := step{name: "read_file", args: `{"path": "shell", "limit": 5}`, result: missing}
	r3 := step{name: "read_file", args: `{"path": "shell", "offset": 20}`, result: missing}
	tests := []struct {
		name  string
		d     Detector
		steps []step
		want  string // one letter per step: O, W, S
	}{
		{"three in a row warns, a fourth stops", Detector{}, []step{a, a, a, a}, "OOWS"},
		{"repeats 4", Detector{Repeats: 4, Recurs: -1}, []step{a, a, a, a, a}, "OOOWS"},
		{"repeats off", Detector{Repeats: -1, Recurs: -1}, []step{a, a, a, a}, "OOOO"},
		{"two warnings before stop", Detector{Warnings: 2}, []step{a, a, a, a, a}, "OOWWS"},
		{"cycle twice", Detector{}, []step{a, b, a, b}, "OOOW"},
		{"cycle three times", Detector{Cycles: 3, Recurs: -1}, []step{a, b, a, b, a, b, a}, "OOOOOWS"},
		{"cycles off", Detector{Cycles: -1, Recurs: -1}, []step{a, b, a, b, a, b}, "OOOOOO"},
		{"three-step cycle is not a two-step cycle", Detector{}, []step{a, b, c, a, b, c}, "OOOOOO"},
		{"progress between repeats", Detector{Recurs: -1}, []step{a, a, c, a, a}, "OOOOO"},
		// The demo model listed the files between failed reads of other paths.
		{"one step recurs between others", Detector{}, []step{a, b, a, c, a, a}, "OOOOWS"},
		{"recurs 4", Detector{Recurs: 4}, []step{a, b, a, c, a, b, a}, "OOOOOOW"},
		{"recurs beyond the window", Detector{}, []step{a, b, c, d, e, a, d, a}, "OOOOOOOO"},
		{"recurs off", Detector{Recurs: -1}, []step{a, b, a, c, a, b}, "OOOOOO"},
		{"one tool, one result, other arguments", Detector{}, []step{r1, r2, r3, r1}, "OOWS"},
		{"same results off", Detector{SameResults: -1}, []step{r1, r2, r3}, "OOO"},
		{"one result from other tools is not a loop", Detector{}, []step{r1, {name: "list_files", args: "{}", result: r1.result}, r2}, "OOO"},
		{"other results are progress", Detector{}, []step{r1, r2, {name: r1.name, args: `{"path": "b.go"}`, result: "package b"}}, "OOO"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.d
			var got strings.Builder
			for _, s := range tt.steps {
				v := d.Check(chat.ToolCall{Function: chat.FunctionCall{Name: s.name, Arguments: s.args}}, s.result)
				got.WriteString(v.String()[:1])
			}
			if got.String() != tt.want {
				t.Errorf("verdicts = %s, want %s", got.String(), tt.want)
			}
		})
	}
}

func TestCanonical(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"spaces", `{ "path":"pom.xml" }`, `{"path":"pom.xml"}`},
		{"sorted keys, nested", `{"b": [1, {"d": 2, "c": 3}], "a": null}`, `{"a":null,"b":[1,{"c":3,"d":2}]}`},
		{"numbers as written", `{"n": 1.50, "big": 12345678901234567890}`, `{"big":12345678901234567890,"n":1.50}`},
		{"no HTML escapes", `{"s": "<a & b>"}`, `{"s":"<a & b>"}`},
		{"not JSON", `{"path": "pom.xml", ...}`, `{"path": "pom.xml", ...}`},
		{"trailing text", `{} x`, `{} x`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Canonical(tt.in)); diff != "" {
				t.Errorf("Canonical(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// FuzzCanonical: Canonical never panics and is idempotent.
func FuzzCanonical(f *testing.F) {
	f.Add(`{ "path":"pom.xml" }`)
	f.Add(`{"b": [1, {"d": 2, "c": 3}], "a": null}`)
	f.Add(`{"path": "pom.xml", ...}`)
	f.Fuzz(func(t *testing.T, in string) {
		once := Canonical(in)
		if twice := Canonical(once); twice != once {
			t.Fatalf("Canonical(%q) = %q, then %q", in, once, twice)
		}
	})
}

// TestNote checks the note for each pattern.
func TestNote(t *testing.T) {
	var d Detector
	for _, args := range []string{`{"path": "x"}`, `{"path": "x", "limit": 1}`, `{"path": "x", "limit": 2}`} {
		d.Check(chat.ToolCall{Function: chat.FunctionCall{Name: "read_file", Arguments: args}}, "no such file")
	}
	if d.Note() != NoteSameResult {
		t.Errorf("after one tool with one result: Note() = %q, want %q", d.Note(), NoteSameResult)
	}
	var e Detector
	for range 3 {
		e.Check(chat.ToolCall{Function: chat.FunctionCall{Name: "read_file", Arguments: `{"path": "x"}`}}, "no such file")
	}
	if e.Note() != Note {
		t.Errorf("after identical calls: Note() = %q, want %q", e.Note(), Note)
	}
}

// TestChanged: a test run after each attempted fix recurs with the same
// failure, but an edit between its runs makes it progress to check, not a
// loop; without the edits it is one.
func TestChanged(t *testing.T) {
	test := chat.ToolCall{Function: chat.FunctionCall{Name: "shell", Arguments: `{"command": "go test ./..."}`}}
	for _, edits := range []bool{true, false} {
		var d Detector
		var got strings.Builder
		for i := range 3 {
			edit := chat.ToolCall{Function: chat.FunctionCall{Name: "edit_file", Arguments: fmt.Sprintf(`{"try": %d}`, i)}}
			got.WriteString(d.Check(edit, "ok").String()[:1])
			if edits {
				d.Changed()
			}
			got.WriteString(d.Check(test, "FAIL: TestX").String()[:1])
		}
		want := map[bool]string{true: "OOOOOO", false: "OOOOOW"}[edits]
		if got.String() != want {
			t.Errorf("edits %v: verdicts %s, want %s", edits, got.String(), want)
		}
	}
}
