package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/choose"
	"github.com/loopagent/loop/agent/eval"
)

type chooseFlags struct {
	budget  float64
	ctxSize int
	kvType  string
	passed  []string
	evals   []string
	license []string
	jsonOut bool
}

// chooseReport is `loop choose --json`.
type chooseReport struct {
	Constraints choose.Constraints `json:"constraints"`
	Verdicts    []choose.Verdict   `json:"verdicts"`
	Ranked      []string           `json:"ranked"`
}

// runChoose is `loop choose FILE.gguf...`: package choose's hard
// constraints and ranking on real files. Each candidate's memory at the
// context, trained context, template tool support and license come from
// its metadata; --license-allow rejects the files whose license is not
// listed; --passed or --eval (a `loop eval --json` report) adds eval
// results, which rank the kept ones.
func runChoose(_ context.Context, args []string, stdout, stderr io.Writer) error {
	var f chooseFlags
	fs := newFlagSet("choose", stderr)
	fs.Float64Var(&f.budget, "budget", 12, "memory for the model, in GB (10^9 bytes)")
	fs.IntVarP(&f.ctxSize, "ctx-size", "c", 32768, "context the agent needs, in tokens")
	fs.StringVar(&f.kvType, "kv-type", "f16", "KV cache type: "+strings.Join(choose.KVTypes(), ", "))
	fs.StringArrayVar(&f.passed, "passed", nil, "eval results of a candidate: FILE=PASSED/TASKS (from loop eval); repeat per file")
	fs.StringArrayVar(&f.evals, "eval", nil, "a candidate's `loop eval --json` report: FILE=REPORT.json, or FILE=REPORT.json#CONFIG for one configuration (default: the one with the highest lower bound); repeat per file")
	fs.StringSliceVar(&f.license, "license-allow", nil, "licenses the team accepts, comma-separated (general.license, or general.license.name for \"other\"; case does not matter); a file whose license is not listed, or that names none, is rejected (default: any license)")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("give one or more GGUF files")
	}
	if fs.Changed("license-allow") && slices.IndexFunc(f.license, func(s string) bool { return strings.TrimSpace(s) != "" }) < 0 {
		return usagef("--license-allow: give one or more licenses, like apache-2.0,mit")
	}
	if !slices.Contains(choose.KVTypes(), f.kvType) {
		return usagef("--kv-type %q: want one of %s", f.kvType, strings.Join(choose.KVTypes(), ", "))
	}
	if f.budget <= 0 || f.ctxSize <= 0 {
		return usagef("--budget and --ctx-size must be positive")
	}
	results, err := parsePassed(f.passed)
	if err != nil {
		return err
	}
	if err := readEvalResults(f.evals, results); err != nil {
		return err
	}
	var cands []choose.Candidate
	for _, path := range fs.Args() {
		c, err := choose.ReadGGUF(path)
		if err != nil {
			return err
		}
		if r, ok := results[path]; ok {
			c.Passed, c.Tasks = r[0], r[1]
			delete(results, path)
		}
		cands = append(cands, c)
	}
	for path := range results {
		return usagef("--passed or --eval %s: not one of the files", path)
	}
	cons := choose.Constraints{BudgetGB: f.budget, Context: f.ctxSize, KVType: f.kvType, Licenses: f.license}
	all, ranked := choose.Choose(cands, cons)
	if f.jsonOut {
		r := chooseReport{Constraints: cons, Verdicts: all, Ranked: []string{}}
		for _, v := range ranked {
			r.Ranked = append(r.Ranked, v.Candidate.Name)
		}
		return writeJSON(stdout, r)
	}
	fmt.Fprintf(stdout, "budget %s GB, context %d tokens, %s KV cache", trimFloat(f.budget), f.ctxSize, f.kvType)
	if f.license != nil {
		fmt.Fprintf(stdout, ", licenses %s", strings.Join(f.license, ", "))
	}
	fmt.Fprintln(stdout)
	return choose.WriteTable(stdout, all, ranked)
}

// parsePassed reads FILE=PASSED/TASKS flags.
func parsePassed(flags []string) (map[string][2]int, error) {
	out := map[string][2]int{}
	for _, s := range flags {
		file, frac, ok := strings.Cut(s, "=")
		var k, n int
		if ok {
			_, err := fmt.Sscanf(frac, "%d/%d", &k, &n)
			ok = err == nil && n > 0 && k >= 0 && k <= n
		}
		if !ok {
			return nil, usagef("--passed %q: want FILE=PASSED/TASKS, like model.gguf=31/50", s)
		}
		out[file] = [2]int{k, n}
	}
	return out, nil
}

func trimFloat(x float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", x), "0"), ".")
}

// readEvalResults adds to results the pass rate of each FILE=REPORT.json
// flag: the named configuration's (after #), or the configuration of the
// report whose pass rate has the highest Wilson lower bound, which is the
// one a user would run the model with.
func readEvalResults(flags []string, results map[string][2]int) error {
	for _, s := range flags {
		file, report, ok := strings.Cut(s, "=")
		if !ok || file == "" || report == "" {
			return usagef("--eval %q: want FILE=REPORT.json or FILE=REPORT.json#CONFIG", s)
		}
		report, config, _ := strings.Cut(report, "#")
		if _, dup := results[file]; dup {
			return usagef("--eval %s: the file has results already", file)
		}
		data, err := os.ReadFile(report)
		if err != nil {
			return err
		}
		r, err := eval.ReadReport(data)
		if err != nil {
			return fmt.Errorf("%s: not a loop eval --json report: %w", report, err)
		}
		best := -1
		for i, sum := range r.Summaries {
			if sum.Pass.N == 0 || config != "" && sum.Config != config {
				continue
			}
			if best < 0 || sum.Pass.Interval().Low > r.Summaries[best].Pass.Interval().Low {
				best = i
			}
		}
		if best < 0 {
			if config != "" {
				return fmt.Errorf("%s: no runs of configuration %q", report, config)
			}
			return fmt.Errorf("%s: no runs", report)
		}
		pass := r.Summaries[best].Pass
		results[file] = [2]int{pass.K, pass.N}
	}
	return nil
}
