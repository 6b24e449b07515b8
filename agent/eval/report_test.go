package eval

import (
	"bytes"
	"context"
	"encoding/xml"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/internal/golden"
)

// TestSeed13Report runs seed 000 Example 13's suite under every built-in
// configuration and checks the whole text report: the seed's table with
// +verify and full columns (7/7 each); the rates (raw: 19 of the 22 call
// attempts parse as written, counted by hand from the scripts); and the
// comparisons: at 7 scenarios only raw against +verify and full (6 of 6
// discordant pairs, p = 2/64) differs beyond noise.
func TestSeed13Report(t *testing.T) {
	rep := runSuite(t, Seed13(), configNames()...)
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "report.txt", b.String())
}

// TestReportJSON: a report survives a JSON round trip whole.
func TestReportJSON(t *testing.T) {
	rep := runSuite(t, Seed13(), "raw", "+loop")
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadReport(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(rep, back); diff != "" {
		t.Errorf("ReadReport(WriteJSON(r)) differs (-want +got):\n%s", diff)
	}
	if back.Table() != rep.Table() {
		t.Errorf("the table of the read report differs:\n%s", back.Table())
	}
}

// TestSuiteOnDisk writes the built-in suites as directories, loads them
// back, and gets the same scenarios and the same table.
func TestSuiteOnDisk(t *testing.T) {
	for _, suite := range []*Suite{Seed13(), Classifier()} {
		t.Run(suite.Name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), suite.Name)
			if err := WriteSuite(dir, suite); err != nil {
				t.Fatal(err)
			}
			back, err := LoadSuite(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range back.Scenarios {
				s.dir = ""
			}
			if diff := cmp.Diff(suite, back, cmp.AllowUnexported(Scenario{})); diff != "" {
				t.Errorf("LoadSuite(WriteSuite(s)) differs (-want +got):\n%s", diff)
			}
			if a, b := runSuite(t, suite, "+loop").Table(), runSuite(t, back, "+loop").Table(); a != b {
				t.Errorf("table from disk:\n%s\nwant\n%s", b, a)
			}
		})
	}
}

// TestWorkspaceAndCheck: a scenario's workspace/ directory and files are
// copied in, a real tool reads and edits them, and the pass condition's
// check command and answer pattern decide.
func TestWorkspaceAndCheck(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "01-fix")
	if err := os.MkdirAll(filepath.Join(sub, "workspace"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(sub, "workspace", "a.txt"), []byte("hello wrld\n"), 0o644)
	scenario := `{"task": "fix the typo in a.txt", "files": {"check.sh": "grep -q 'hello world' a.txt\n"},
	  "replies": ["<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}\n</tool_call>",
	    "<tool_call>\n{\"name\": \"edit_file\", \"arguments\": {\"path\": \"a.txt\", \"old_string\": \"wrld\", \"new_string\": \"world\"}}\n</tool_call>",
	    "Fixed the typo."],
	  "pass": {"check": "sh check.sh", "answer": "^Fixed", "calls": [{"name": "edit_file", "arguments": {"path": "a.txt"}}]}}`
	os.WriteFile(filepath.Join(sub, "scenario.json"), []byte(scenario), 0o644)
	suite, err := LoadSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep := runSuite(t, suite, "+retry")
	if r := rep.Results[0]; !r.Pass || r.Requests != 3 || r.RightCall == nil || !*r.RightCall {
		t.Errorf("result %+v, want a pass in 3 requests with the right call", r)
	}
	for _, tt := range []struct{ field, value, reason string }{
		{"check", "false", "check"}, {"answer", "^Broken", "answer"},
	} {
		s := *suite.Scenarios[0]
		switch tt.field {
		case "check":
			s.Pass.Check = tt.value
		case "answer":
			s.Pass.Answer = tt.value
		}
		rep := runSuite(t, &Suite{Name: "x", Scenarios: []*Scenario{&s}}, "+retry")
		if r := rep.Results[0]; r.Pass || r.Reason != tt.reason {
			t.Errorf("with %s %q: %+v, want FAIL:%s", tt.field, tt.value, r, tt.reason)
		}
	}
}

// TestFromTranscript records a real run's transcript, turns it into a
// scenario, and runs it: the same requests, and a pass on the check the
// gate used.
func TestFromTranscript(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("test:\n\tgrep -q 30 total.txt\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "total.txt"), []byte("27\n"), 0o644)
	texts := []string{
		hermesCall(`{"name": "read_file", "arguments": {"path": "total.txt"}}`),
		hermesCall(`{"name": "edit_file", "arguments": {"path": "total.txt", "old_string": "27", "new_string": "30"}}`),
		hermesCall(`{"name": "shell", "arguments": {"command": "make test"}}`),
		"Fixed: 30.",
	}
	script, _ := model.NewScript("hermes", replies(texts...))
	ws, _ := tools.NewWorkspace(dir, tools.Config{Policy: tools.Policy{Yes: true}})
	var log bytes.Buffer
	a, err := loop.New(script, loop.Settings{ToolSet: tools.Default(), Workspace: ws, Sink: transcript.NewWriter(&log), NoContext: true})
	if err != nil {
		t.Fatal(err)
	}
	if out := a.Run(context.Background(), "total.txt says 27, make it 30"); out.Kind != loop.Verified {
		t.Fatalf("recorded run: %s", out)
	}
	evs, err := transcript.Read(&log)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := FromTranscript(evs)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Check != "make test" || sc.Pass.Check != "make test" || sc.Workspace != dir || len(sc.Replies) != 4 {
		t.Fatalf("scenario %+v, want the check make test, the workspace and 4 replies", sc)
	}
	os.WriteFile(filepath.Join(dir, "total.txt"), []byte("27\n"), 0o644) // revert the recorded run
	rep := runSuite(t, &Suite{Name: "transcript", Scenarios: []*Scenario{sc}}, "full")
	if r := rep.Results[0]; !r.Pass || r.Requests != 4 {
		t.Errorf("replayed: %+v, want PASS(4)", r)
	}
}

// TestHTML: the page is self-contained (no src or href to fetch, no
// script), and its chart is well-formed SVG with a bar and a whisker per
// rate that has trials.
func TestHTML(t *testing.T) {
	rep := runSuite(t, Seed13(), "raw", "+verify")
	page := pageOf(t, rep)
	for _, bad := range []string{"<script", " src=", " href=", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("page contains %q: not self-contained", bad)
		}
	}
	var svg struct {
		Rects []struct {
			Class string `xml:"class,attr"`
		} `xml:"rect"`
		Lines []struct {
			Class string `xml:"class,attr"`
		} `xml:"line"`
	}
	if err := xml.Unmarshal([]byte(rep.Chart()), &svg); err != nil {
		t.Fatalf("chart is not well-formed XML: %v", err)
	}
	bars, whiskers := 0, 0
	for _, r := range svg.Rects {
		if r.Class == "bar" {
			bars++
		}
	}
	for _, l := range svg.Lines {
		if l.Class == "whisker" {
			whiskers++
		}
	}
	// Per configuration: pass, parsed raw, parsed, schema-valid; no
	// scenario of seed13 expects calls, so no right-call bar.
	if bars != 8 || whiskers != 8 {
		t.Errorf("%d bars and %d whiskers, want 8 and 8", bars, whiskers)
	}
}

// TestHTMLTitle: the page's title and heading name the model's file and
// the suite, each once.
func TestHTMLTitle(t *testing.T) {
	tests := []struct {
		name, suite, model, want string
	}{
		{"live model", "live", "testdata/models/agent-tiny-qwen2-f32.gguf", "loop eval: agent-tiny-qwen2-f32.gguf on suite live"},
		{"scripted", "seed13", "", "loop eval: scripted replies on suite seed13"},
		{"a directory named suite", suiteName("demo/suite/"), "demo/model.gguf", "loop eval: model.gguf on demo/suite"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := runSuite(t, Seed13(), "raw")
			rep.Suite, rep.Model = tt.suite, tt.model
			if got := rep.Title(); got != tt.want {
				t.Errorf("Title() = %q, want %q", got, tt.want)
			}
			page := pageOf(t, rep)
			for _, want := range []string{"<title>" + tt.want + "</title>", "<h1>" + tt.want + "</h1>"} {
				if !strings.Contains(page, want) {
					t.Errorf("page lacks %q", want)
				}
			}
		})
	}
}

// TestHTMLLegend: the legend is HTML text below the chart with every
// label whole, the parse rates' grammar note included; the chart has no
// fixed size, and a configuration's long name wraps into lines that fit
// its group.
func TestHTMLLegend(t *testing.T) {
	rep := longLabelReport(t)
	page := pageOf(t, rep)
	labels := rep.LegendLabels()
	want := "parsed, raw (under a grammar in " + rep.Summaries[1].Config + ": there the grammar's rate, not the model's)"
	if labels[1] != want {
		t.Errorf("LegendLabels()[1] = %q, want %q", labels[1], want)
	}
	rep.Summaries[0].Grammar = true
	if got, want := rep.LegendLabels()[1], "parsed, raw (under a grammar: the grammar's rate, not the model's)"; got != want {
		t.Errorf("all under a grammar: LegendLabels()[1] = %q, want %q", got, want)
	}
	rep.Summaries[0].Grammar, rep.Summaries[1].Grammar = false, false
	if got, want := rep.LegendLabels()[1], "parsed, raw (no grammar)"; got != want {
		t.Errorf("no grammar: LegendLabels()[1] = %q, want %q", got, want)
	}
	rep.Summaries[1].Grammar = true
	for _, l := range labels {
		if !strings.Contains(page, `<span class="label">`+html.EscapeString(l)+"</span>") {
			t.Errorf("legend label %q is not whole in the page", l)
		}
	}
	var svg struct {
		Width string `xml:"width,attr"`
		Texts []struct {
			Class string   `xml:"class,attr"`
			Spans []string `xml:"tspan"`
		} `xml:"text"`
	}
	if err := xml.Unmarshal([]byte(rep.Chart()), &svg); err != nil {
		t.Fatal(err)
	}
	if svg.Width != "" {
		t.Errorf("chart has width %q; want none, so that the page sizes it", svg.Width)
	}
	var names []string
	for _, tx := range svg.Texts {
		if tx.Class == "config" {
			names = append(names, strings.Join(tx.Spans, " "))
			if len(tx.Spans) > 1 && len(tx.Spans[0]) < 20 {
				t.Errorf("name wrapped as %q: a line too short", tx.Spans)
			}
		}
	}
	if diff := cmp.Diff([]string{rep.Summaries[0].Config, rep.Summaries[1].Config}, names); diff != "" {
		t.Errorf("configuration names under the chart (-want +got):\n%s", diff)
	}
}

// longLabelReport is a report whose labels are as long as they get: one
// configuration wrote under a grammar, and one has a long name.
func longLabelReport(t *testing.T) *Report {
	t.Helper()
	rep := runSuite(t, Seed13(), "raw", "+verify")
	rep.Model = "testdata/models/agent-tiny-qwen2-f32.gguf"
	rep.Summaries[1].Grammar = true
	rep.Summaries[1].Config = "the whole reliability layer with repair, retries, the loop guard and the verification gate"
	return rep
}

func TestWrapWords(t *testing.T) {
	tests := []struct {
		name  string
		s     string
		width int
		want  []string
	}{
		{"fits", "whole layer", 20, []string{"whole layer"}},
		{"at spaces", "the whole reliability layer", 12, []string{"the whole", "reliability", "layer"}},
		{"long word", "abcdefghij kl", 4, []string{"abcd", "efgh", "ij", "kl"}},
		{"empty", "", 5, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wrapWords(tt.s, tt.width); !cmp.Equal(got, tt.want) {
				t.Errorf("wrapWords(%q, %d) = %q, want %q", tt.s, tt.width, got, tt.want)
			}
		})
	}
}

// TestSuiteName: a suite directory is named by its name, and one named
// "suite" by its parent's too.
func TestSuiteName(t *testing.T) {
	for dir, want := range map[string]string{
		"demo/suite": "demo/suite", "demo/suite/": "demo/suite", "/tmp/x/suite": "x/suite",
		"suite": "suite", "/suite": "suite", "testdata/live": "live", "live": "live",
	} {
		if got := suiteName(dir); got != want {
			t.Errorf("suiteName(%q) = %q, want %q", dir, got, want)
		}
	}
}

// TestHTMLRates: the page gives each configuration's rates as a table of
// its own, each rate with its runs and its interval on one row, not as
// preformatted text that a narrow page wraps mid-interval.
func TestHTMLRates(t *testing.T) {
	rep := runSuite(t, Seed13(), "raw", "+verify")
	page := pageOf(t, rep)
	if got := strings.Count(page, `<table class="rates">`); got != len(rep.Summaries) {
		t.Errorf("%d rate tables for %d configurations", got, len(rep.Summaries))
	}
	for _, s := range rep.Summaries {
		row := "<tr><td>pass</td><td>" + s.Pass.Fraction() + "</td><td>" + strings.Join(strings.Fields(s.Pass.String()), " ") + "</td></tr>"
		if !strings.Contains(page, row) {
			t.Errorf("page lacks %s's pass row %q", s.Config, row)
		}
	}
	if strings.Contains(page, "<pre>"+html.EscapeString(rep.Rates())) {
		t.Error("the rates are still preformatted text")
	}
}

// pageOf is the report's HTML page.
func pageOf(t *testing.T, rep *Report) string {
	t.Helper()
	var b strings.Builder
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
