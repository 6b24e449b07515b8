package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/golden"
	"github.com/loopagent/loop/internal/testmodels"
)

// TestChooseLicense: `loop choose --license-allow LIST` reads the license
// from the file's metadata (general.license, .name and .link) and rejects
// a file whose license is not listed, as a hard constraint after memory,
// trained context and template tools; one that is listed is kept and
// ranked.
func TestChooseLicense(t *testing.T) {
	model := testmodels.WithMetadata(t, testmodels.TinyQwen15F32, map[string]any{
		"general.license":      "other",
		"general.license.name": "qwen-research",
		"general.license.link": "https://example.com/LICENSE",
	})
	var table strings.Builder
	for _, allow := range []string{"apache-2.0,mit", "Qwen-Research"} {
		code, out, errOut := runLoop(t, "choose", "--license-allow", allow, "--passed", model+"=31/50", model)
		if code != 0 {
			t.Fatalf("loop choose --license-allow %s exited %d: %s", allow, code, errOut)
		}
		table.WriteString(out)
	}
	golden.Check(t, "choose.txt", table.String())

	code, out, errOut := runLoop(t, "choose", "--json", "--license-allow", "mit", model)
	var r chooseReport
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("loop choose --json: %d %s %s", code, out, errOut)
	}
	if c := r.Verdicts[0].Candidate; c.License != "other" || c.LicenseName != "qwen-research" || len(r.Ranked) != 0 ||
		strings.Join(r.Constraints.Licenses, ",") != "mit" {
		t.Errorf("loop choose --json --license-allow mit = %s; want the license read, the constraint and nothing ranked", out)
	}
	// Without the flag no license is checked: a file that names none is kept.
	plain := testmodels.Path(t, testmodels.TinyQwen15F32)
	if code, out, _ := runLoop(t, "choose", plain); code != 0 || !strings.Contains(out, "0.09 GB  kept") {
		t.Errorf("loop choose without --license-allow = %d:\n%s", code, out)
	}
	if code, out, _ := runLoop(t, "choose", "--license-allow", "mit", plain); code != 0 || !strings.Contains(out, "rejected: no license in the metadata (allowed: mit)") {
		t.Errorf("loop choose --license-allow mit on a file without a license = %d:\n%s", code, out)
	}
	if code, _, _ := runLoop(t, "choose", "--license-allow", "", plain); code != 2 {
		t.Errorf("loop choose --license-allow '' exited %d, want 2", code)
	}
}
