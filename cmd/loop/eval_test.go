package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/eval"
	"github.com/loopagent/loop/internal/testmodels"
)

// TestEvalCommand runs `loop eval` on the built-in seed13 suite: the
// seed's table with the +verify column, --json that reads back, an HTML
// page with the chart, --plan's seed 000 Example 9 line, and a
// --transcripts folder that does not exist, or that holds a transcript a
// run would write, refused before any run.
func TestEvalCommand(t *testing.T) {
	html := filepath.Join(t.TempDir(), "report.html")
	code, out, errOut := runLoop(t, "eval", "--config", "raw", "--config", "+verify", "--html", html)
	if code != 0 {
		t.Fatalf("loop eval exited %d: %s", code, errOut)
	}
	for _, want := range []string{
		"scenario                raw             +verify\n",
		"answers before testing  FAIL:unverified PASS(5)\n",
		"pass rate               1/7             7/7\n",
		"raw vs +verify: 1/7 vs 7/7, intervals do not overlap, 6/6 discordant pairs favour +verify, sign test p=0.031: differ beyond noise",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("loop eval output lacks %q:\n%s", want, out)
		}
	}
	page, err := os.ReadFile(html)
	if err != nil || !strings.Contains(string(page), `<svg id="rates-chart"`) {
		t.Errorf("--html wrote %d bytes (%v), want a page with the chart", len(page), err)
	}

	code, out, errOut = runLoop(t, "eval", "--suite", "classifier", "--config", "full", "--json")
	if code != 0 {
		t.Fatalf("loop eval --json exited %d: %s", code, errOut)
	}
	rep, err := eval.ReadReport([]byte(out))
	if err != nil || len(rep.Results) != 11 || rep.Summaries[0].RightCall.Fraction() != "4/11" {
		t.Errorf("--json: %v, %+v; want 11 results, right call 4/11", err, rep)
	}

	code, out, _ = runLoop(t, "eval", "--plan", "90%", "85%")
	if code != 0 || out != "90% vs 85% separate at n=700 prompts per file\n" {
		t.Errorf("loop eval --plan 90%% 85%% = %d, %q", code, out)
	}
	if code, _, _ := runLoop(t, "eval", "--config", "nonesuch"); code != 2 {
		t.Errorf("loop eval --config nonesuch exited %d, want 2", code)
	}
	missing := filepath.Join(t.TempDir(), "nonesuch")
	if code, _, errOut := runLoop(t, "eval", "--config", "raw", "--transcripts", missing); code == 0 || !strings.Contains(errOut, missing+": not an existing directory") {
		t.Errorf("loop eval --transcripts %s exited %d, %q; want an error before the runs that names it", missing, code, errOut)
	}
	kept := t.TempDir()
	if code, _, errOut := runLoop(t, "eval", "--config", "raw", "--transcripts", kept); code != 0 {
		t.Fatalf("loop eval --transcripts exited %d: %s", code, errOut)
	}
	before, _ := os.ReadDir(kept)
	code, out, errOut = runLoop(t, "eval", "--config", "raw", "--config", "+verify", "--transcripts", kept)
	after, _ := os.ReadDir(kept)
	if code == 0 || !regexp.MustCompile(regexp.QuoteMeta(kept+"/")+`\S+\.raw\.0\.jsonl: already exists`).MatchString(errOut) || out != "" || len(after) != len(before) {
		t.Errorf("loop eval into a folder holding its transcripts exited %d, %q, wrote %d files after %d; want an error before the runs that names a transcript", code, errOut, len(after), len(before))
	}
}

// TestChooseCommand: `loop choose` on a generated test model reads its
// facts from the file (`loop info` agrees: weights 0.08 GB + KV 0.01 GB at
// 32768) and ranks with --passed; past the trained context it rejects.
func TestChooseCommand(t *testing.T) {
	model := testmodels.Path(t, testmodels.TinyQwen15F32)
	code, out, errOut := runLoop(t, "choose", "-c", "32768", "--passed", model+"=31/50", model)
	if code != 0 {
		t.Fatalf("loop choose exited %d: %s", code, errOut)
	}
	for _, want := range []string{
		"tiny-qwen2-qwen15vocab-f32.gguf  weights 0.08 GB + KV 0.01 GB = 0.09 GB  kept",
		"  tiny-qwen2-qwen15vocab-f32.gguf  31/50 passed, lower bound 0.48",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("loop choose output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runLoop(t, "choose", "--json", "-c", "65536", model)
	var r chooseReport
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Verdicts[0].Rejected != "trained context 32768 < 65536" {
		t.Errorf("loop choose --json -c 65536: %d %s %s", code, out, errOut)
	}
}

// TestChooseEval: `loop choose --eval FILE=REPORT.json` ranks by a real
// `loop eval --json` report: the configuration named after # (seed 000
// Example 13's "raw": 1/7), or else the best one ("+verify": 7/7).
func TestChooseEval(t *testing.T) {
	model := testmodels.Path(t, testmodels.TinyQwen15F32)
	code, out, errOut := runLoop(t, "eval", "--suite", "seed13", "--json")
	if code != 0 {
		t.Fatalf("loop eval --suite seed13 exited %d: %s", code, errOut)
	}
	report := filepath.Join(t.TempDir(), "report.json")
	os.WriteFile(report, []byte(out), 0o644)
	for _, tc := range []struct{ arg, want string }{
		{model + "=" + report, "7/7 passed, lower bound 0.65"},
		{model + "=" + report + "#raw", "1/7 passed, lower bound 0.03"},
	} {
		code, out, errOut := runLoop(t, "choose", "-c", "4096", "--eval", tc.arg, model)
		if code != 0 || !strings.Contains(out, tc.want) {
			t.Errorf("loop choose --eval %s: exit %d, output lacks %q:\n%s%s", tc.arg, code, tc.want, out, errOut)
		}
	}
	if code, _, errOut := runLoop(t, "choose", "--eval", model+"="+report+"#nonesuch", model); code == 0 || !strings.Contains(errOut, `"nonesuch"`) {
		t.Errorf("loop choose --eval ...#nonesuch: exit %d, %s", code, errOut)
	}
}

// TestEvalLive runs a scenario without scripted replies on a generated
// test model (random weights: it fails, but the run goes through the
// in-process client, under its call grammar, which the rates' label
// says), and once more without the grammar (no_grammar).
func TestEvalLive(t *testing.T) {
	model := testmodels.Path(t, testmodels.TinyQwen3F16)
	dir := filepath.Join(t.TempDir(), "01-read")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "scenario.json"), []byte(`{"task": "Read pom.xml.", "max_steps": 2,
		"files": {"pom.xml": "<project/>\n"}, "pass": {"calls": [{"name": "read_file", "arguments": {"path": "pom.xml"}}]}}`), 0o644)
	short := filepath.Join(t.TempDir(), "short.json")
	os.WriteFile(short, []byte(`{"name": "short", "max_tokens": 32}`), 0o644)
	suite := filepath.Dir(dir)
	code, out, errOut := runLoop(t, "eval", "-m", model, "-t", "1", "--suite", suite, "--config", short, "--json")
	if code != 0 {
		t.Fatalf("loop eval -m exited %d: %s", code, errOut)
	}
	rep, err := eval.ReadReport([]byte(out))
	if err != nil || len(rep.Results) != 1 || !rep.Results[0].Grammar || rep.Results[0].Requests == 0 {
		t.Fatalf("report %v %+v: want one run of the live model, under a grammar", err, rep)
	}
	noGrammar := filepath.Join(t.TempDir(), "raw.json")
	os.WriteFile(noGrammar, []byte(`{"name": "nogrammar", "no_grammar": true, "max_tokens": 32}`), 0o644)
	code, out, errOut = runLoop(t, "eval", "-m", model, "-t", "1", "--suite", suite, "--config", noGrammar, "--json")
	if code != 0 {
		t.Fatalf("loop eval -m with no_grammar exited %d: %s", code, errOut)
	}
	if rep, err := eval.ReadReport([]byte(out)); err != nil || len(rep.Results) != 1 || rep.Results[0].Grammar {
		t.Errorf("report %v %+v: want one run without a grammar", err, rep)
	}
}
