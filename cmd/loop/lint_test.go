package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/golden"
)

// TestLintSeedExample7 runs `loop lint` on seed 000 Example 7's two tool
// sets (large.json and small.json, written as the seed's program writes
// them). With the schema rules on, as by default, the sets have 25 and 6
// findings; the report shows the seed's 18 and 0 first, the rules for
// clear tools alone, and the schema rules' findings after them with
// their own count. The first blocks, with the file names read as the
// seed's "large set" and "small set", are the seed's output verbatim;
// --no-schema prints them alone.
func TestLintSeedExample7(t *testing.T) {
	var full, seed, plain strings.Builder
	for _, set := range []string{"large", "small"} {
		path := golden.Path(t, set+".json")
		named := func(out string) string { return strings.ReplaceAll(out, path, set+" set") }
		code, out, errOut := runLoop(t, "lint", path)
		if code != 0 {
			t.Fatalf("loop lint %s exited %d: %s", path, code, errOut)
		}
		full.WriteString(named(out))
		block, _, ok := strings.Cut(named(out), set+" set, schema rules:")
		if !ok {
			t.Fatalf("loop lint %s printed no schema rules' block:\n%s", path, out)
		}
		seed.WriteString(block)
		code, out, errOut = runLoop(t, "lint", "--no-schema", path)
		if code != 0 {
			t.Fatalf("loop lint --no-schema %s exited %d: %s", path, code, errOut)
		}
		plain.WriteString(named(out))
	}
	golden.Seed(t, "example7.txt", seed.String())
	golden.Seed(t, "example7.txt", plain.String())
	golden.Check(t, "lint.txt", full.String())

	code, out, _ := runLoop(t, "lint", "--json", golden.Path(t, "large.json"))
	var r lintReport
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.ToolRules != 18 || r.SchemaRules != 7 || len(r.Findings) != 25 {
		t.Errorf("loop lint --json large.json = %d: tool rules %d, schema rules %d, findings %d; want 18, 7 and 25\n%s",
			code, r.ToolRules, r.SchemaRules, len(r.Findings), out)
	}
}

// TestLintSize: `loop lint --size` on seed 004 Example 2's tool (its
// pretty-printed definition, read_file.json, copied from the seed) prints
// the seed's request body and size line verbatim: 385 characters, of
// which the tool is 275.
func TestLintSize(t *testing.T) {
	code, out, errOut := runLoop(t, "lint", "--size", golden.Path(t, "read_file.json"))
	if code != 0 {
		t.Fatalf("loop lint --size exited %d: %s", code, errOut)
	}
	golden.Seed(t, "example2.txt", out)

	code, out, errOut = runLoop(t, "lint", "--size", "--json", "--question", "Hi", golden.Path(t, "read_file.json"))
	var r struct {
		Chars     int   `json:"chars"`
		ToolChars int   `json:"tool_chars"`
		PerTool   []int `json:"per_tool"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Chars != 385-len("What is in pom.xml?")+len("Hi") || r.ToolChars != 275 {
		t.Errorf("loop lint --size --json --question Hi = %d %s %s; want 368 characters, 275 of the tool", code, out, errOut)
	}
}
