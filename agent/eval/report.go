package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/loopagent/loop/agent/loop"
)

// Report is the results of a suite under several configurations, with
// per-configuration rates and pairwise comparisons. It round-trips
// through JSON.
type Report struct {
	// Suite is the suite's name: a built-in's, or its directory's.
	Suite string `json:"suite"`
	// Model is the model file the live runs used, as the command line
	// named it; empty when every run replayed scripted replies.
	Model     string   `json:"model,omitempty"`
	Scenarios []string `json:"scenarios"`
	Configs   []Config `json:"configs"`
	// Seeds is the number of runs of each (scenario, configuration).
	Seeds int `json:"seeds"`
	// Results are the runs, scenario by scenario, then configuration,
	// then seed.
	Results []Result `json:"results"`
	// Summaries has one entry per configuration, in order.
	Summaries []Summary `json:"summaries"`
	// Comparisons are every pair of configurations on the same runs.
	Comparisons []Comparison `json:"comparisons"`
}

// Summary is one configuration's rates, each with its Wilson interval.
type Summary struct {
	Config string `json:"config"`
	// Agent is what loop.New assembled for the configuration's first
	// run: the context settings the figures were measured with.
	Agent loop.Setup `json:"agent"`
	// Pass is the runs that passed.
	Pass Rate `json:"pass"`
	// PassAll is pass^k: the scenarios that passed in all k = Seeds runs.
	PassAll Rate `json:"pass_all"`
	// ParsedRaw and Parsed are the replies with a call attempt whose call
	// parsed as written and after repair and recovery; SchemaValid also
	// fit the schema.
	ParsedRaw   Rate `json:"parsed_raw"`
	Parsed      Rate `json:"parsed"`
	SchemaValid Rate `json:"schema_valid"`
	// Finished is SchemaValid over the call replies the token limit did
	// not cut off: under a grammar it is 1 by construction, and a shortfall
	// of SchemaValid is calls cut off (a random model writing a string
	// until max_tokens).
	Finished Rate `json:"schema_valid_not_cut_off"`
	// RightCall is the runs of scenarios with expected calls that made
	// them.
	RightCall Rate `json:"right_call"`
	// Usable is the replies that are a call parsed as written or a
	// finished answer; EditsFound the edit_file calls whose old_string
	// occurred in the file.
	Usable     Rate `json:"usable"`
	EditsFound Rate `json:"edits_found"`
	// Grammar: some replies were written under a grammar, which parses by
	// construction; the parse rates then say nothing about the model.
	Grammar bool `json:"grammar,omitempty"`
	// Requests is the model requests of all its runs.
	Requests int `json:"requests"`
	// RepairKinds counts its runs' repairs by kind (Result.RepairKinds).
	RepairKinds map[string]int `json:"repair_kinds,omitempty"`
}

// NewReport summarizes results.
func NewReport(suite *Suite, configs []Config, seeds int, results []Result) *Report {
	r := &Report{Suite: suite.Name, Configs: configs, Seeds: seeds, Results: results}
	for _, sc := range suite.Scenarios {
		r.Scenarios = append(r.Scenarios, sc.Name)
	}
	passes := make([][]bool, len(configs))
	for i, c := range configs {
		s := Summary{Config: c.Name}
		allPass := map[string]bool{}
		for _, res := range results {
			if res.Config != c.Name {
				continue
			}
			if s.Pass.N == 0 {
				s.Agent = res.Agent
			}
			s.add(res)
			if _, seen := allPass[res.Scenario]; !seen {
				allPass[res.Scenario] = true
			}
			allPass[res.Scenario] = allPass[res.Scenario] && res.Pass
			passes[i] = append(passes[i], res.Pass)
		}
		for _, ok := range allPass {
			s.PassAll.N++
			if ok {
				s.PassAll.K++
			}
		}
		r.Summaries = append(r.Summaries, s)
	}
	for i := range configs {
		for j := i + 1; j < len(configs); j++ {
			r.Comparisons = append(r.Comparisons, Compare(configs[i].Name, configs[j].Name, passes[i], passes[j]))
		}
	}
	return r
}

// add counts one run.
func (s *Summary) add(res Result) {
	s.Pass.N++
	if res.Pass {
		s.Pass.K++
	}
	s.ParsedRaw = Rate{s.ParsedRaw.K + res.ParsedRaw, s.ParsedRaw.N + res.CallReplies}
	s.Parsed = Rate{s.Parsed.K + res.Parsed, s.Parsed.N + res.CallReplies}
	s.SchemaValid = Rate{s.SchemaValid.K + res.SchemaValid, s.SchemaValid.N + res.CallReplies}
	s.Finished = Rate{s.Finished.K + res.SchemaValid, s.Finished.N + res.CallReplies - res.CutOff}
	if res.RightCall != nil {
		s.RightCall.N++
		if *res.RightCall {
			s.RightCall.K++
		}
	}
	s.Usable = Rate{s.Usable.K + res.Usable, s.Usable.N + res.Replies}
	s.EditsFound = Rate{s.EditsFound.K + res.EditsFound, s.EditsFound.N + res.Edits}
	s.Grammar = s.Grammar || res.Grammar
	s.Requests += res.Requests
	for k, n := range res.RepairKinds {
		if s.RepairKinds == nil {
			s.RepairKinds = map[string]int{}
		}
		s.RepairKinds[k] += n
	}
}

// repairLine lists the repair kinds by count, most first: "repairs:
// single quotes 3, trailing comma 1".
func (s Summary) repairLine() string {
	kinds := make([]string, 0, len(s.RepairKinds))
	for k := range s.RepairKinds {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		a, b := kinds[i], kinds[j]
		if s.RepairKinds[a] != s.RepairKinds[b] {
			return s.RepairKinds[a] > s.RepairKinds[b]
		}
		return a < b
	})
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%s %d", k, s.RepairKinds[k])
	}
	return "repairs: " + strings.Join(parts, ", ")
}

// Cell is the table's cell of a scenario under a configuration: the one
// run's cell (Result.Cell) when every seed agrees, else the passes out of
// the seeds.
func (r *Report) Cell(scenario, config string) string {
	var cells []string
	passed := 0
	for _, res := range r.Results {
		if res.Scenario == scenario && res.Config == config {
			cells = append(cells, res.Cell())
			if res.Pass {
				passed++
			}
		}
	}
	if len(cells) == 0 {
		return "-"
	}
	for _, c := range cells[1:] {
		if c != cells[0] {
			return fmt.Sprintf("%d/%d pass", passed, len(cells))
		}
	}
	return cells[0]
}

// Table is the comparison table: a row per scenario, a column per
// configuration, and the pass-rate row; trailing spaces trimmed.
func (r *Report) Table() string {
	nameW := 24
	for _, s := range r.Scenarios {
		nameW = max(nameW, len(s)+2)
	}
	cellW := 16
	for _, s := range r.Scenarios {
		for _, c := range r.Configs {
			cellW = max(cellW, len(r.Cell(s, c.Name))+1)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s", nameW, "scenario")
	for _, c := range r.Configs {
		fmt.Fprintf(&b, "%-*s", cellW, c.Name)
	}
	for _, s := range r.Scenarios {
		fmt.Fprintf(&b, "\n%-*s", nameW, s)
		for _, c := range r.Configs {
			fmt.Fprintf(&b, "%-*s", cellW, r.Cell(s, c.Name))
		}
	}
	fmt.Fprintf(&b, "\n%-*s", nameW, "pass rate")
	for _, s := range r.Summaries {
		fmt.Fprintf(&b, "%-*s", cellW, s.Pass.Fraction())
	}
	return trimLines(b.String())
}

func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// parseLabel names the parse columns: measured without a grammar, or
// meaningless under one.
func (s Summary) parseLabel() string {
	if s.Grammar {
		return "grammar on: the grammar's rate, not the model's"
	}
	return "no grammar"
}

// rateRow is one rate of a configuration, with its name.
type rateRow struct {
	name string
	rate Rate
}

// rateRows is a configuration's rates in the order the report prints
// them; k is the runs per scenario (pass^k).
func (s Summary) rateRows(k int) []rateRow {
	return []rateRow{
		{"pass", s.Pass},
		{fmt.Sprintf("pass^%d", k), s.PassAll},
		{"parsed, raw (" + s.parseLabel() + ")", s.ParsedRaw},
		{"parsed, after repair", s.Parsed},
		{"schema-valid", s.SchemaValid},
		{"schema-valid, not cut off", s.Finished},
		{"right call", s.RightCall},
		{"call or answer (" + s.parseLabel() + ")", s.Usable},
		{"edits that match", s.EditsFound},
	}
}

// Rates is the per-configuration rates, each with its 95% Wilson
// interval, one block per configuration.
func (r *Report) Rates() string {
	var b strings.Builder
	k := max(r.Seeds, 1)
	for _, s := range r.Summaries {
		fmt.Fprintf(&b, "%s (%d requests)\n  agent: %s\n", s.Config, s.Requests, s.Agent)
		rows := s.rateRows(k)
		w := 0
		for _, row := range rows {
			w = max(w, len(row.name))
		}
		for _, row := range rows {
			fmt.Fprintf(&b, "  %-*s  %-9s %s\n", w, row.name, row.rate.Fraction(), row.rate)
		}
		if len(s.RepairKinds) > 0 {
			fmt.Fprintf(&b, "  %s\n", s.repairLine())
		}
	}
	return b.String()
}

// Differences is one line per pair of configurations.
func (r *Report) Differences() string {
	var b strings.Builder
	for _, c := range r.Comparisons {
		b.WriteString(c.String() + "\n")
	}
	return b.String()
}

// WriteText writes the table, the rates and the comparisons.
func (r *Report) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "%s\nrates with 95%% Wilson intervals:\n%s\npairwise, on the same runs:\n%s",
		r.Table(), r.Rates(), r.Differences())
	return err
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadReport reads a report WriteJSON wrote.
func ReadReport(data []byte) (*Report, error) {
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, &Error{Op: "read report", Err: err}
	}
	return &r, nil
}
