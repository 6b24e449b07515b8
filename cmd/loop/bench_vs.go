package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strconv"

	"github.com/loopagent/loop/llama"
)

// vsRow is one test of `loop bench --vs`: our samples and llama-bench's,
// taken alternately.
type vsRow struct {
	Test   string    `json:"test"`
	Ours   []float64 `json:"ours_ts"`
	Theirs []float64 `json:"llama_bench_ts"`
}

// benchVs runs our pp and tg tests and llama.cpp's own llama-bench (at
// path) on the same model, threads, batch sizes and flash-attention
// setting, one repetition each, alternately, f.reps times, so that both
// see the same machine state.
func benchVs(ctx context.Context, m *llama.Model, f benchFlags, path string) ([]vsRow, error) {
	one := f
	one.reps, one.noReuse = 1, true
	rows := map[string]*vsRow{}
	var order []string
	row := func(test string) *vsRow {
		if rows[test] == nil {
			rows[test] = &vsRow{Test: test}
			order = append(order, test)
		}
		return rows[test]
	}
	for range f.reps {
		rep, err := bench(ctx, m, one)
		if err != nil {
			return nil, err
		}
		for _, r := range rep.Results {
			row(r.Test).Ours = append(row(r.Test).Ours, r.Samples...)
		}
		theirs, err := runLlamaBench(ctx, path, f)
		if err != nil {
			return nil, err
		}
		for test, ts := range theirs {
			row(test).Theirs = append(row(test).Theirs, ts...)
		}
	}
	out := make([]vsRow, 0, len(order))
	for _, t := range order {
		out = append(out, *rows[t])
	}
	return out, nil
}

// runLlamaBench runs llama-bench once (-r 1 -o json) and returns its
// samples per test name (pp512, tg128).
func runLlamaBench(ctx context.Context, path string, f benchFlags) (map[string][]float64, error) {
	fa := "0"
	if f.flashAttn == "on" {
		fa = "1"
	}
	args := []string{"-m", f.model, "-p", strconv.Itoa(f.nPrompt), "-n", strconv.Itoa(f.nGen), "-t", strconv.Itoa(f.threads),
		"-b", strconv.Itoa(f.batch), "-ub", strconv.Itoa(f.ubatch), "-fa", fa, "-ctk", f.cacheK, "-ctv", f.cacheV, "-r", "1", "-o", "json"}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w: %s", path, err, lastLines(stderr.String(), 3))
	}
	var rows []struct {
		NPrompt int       `json:"n_prompt"`
		NGen    int       `json:"n_gen"`
		Samples []float64 `json:"samples_ts"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rows); err != nil {
		return nil, fmt.Errorf("%s: reading its JSON: %w", path, err)
	}
	out := map[string][]float64{}
	for _, r := range rows {
		test := fmt.Sprintf("tg%d", r.NGen)
		if r.NPrompt > 0 {
			test = fmt.Sprintf("pp%d", r.NPrompt)
		}
		out[test] = append(out[test], r.Samples...)
	}
	return out, nil
}

// printVs writes the side-by-side table with the ratio of the means.
func printVs(w io.Writer, rows []vsRow, threads int) {
	fmt.Fprintf(w, "\nloop against llama.cpp's llama-bench, interleaved, %d threads (t/s, mean ± sd)\n", threads)
	fmt.Fprintf(w, "| %8s | %20s | %20s | %7s |\n| -------: | -------------------: | -------------------: | ------: |\n", "test", "loop", "llama-bench", "ratio")
	for _, r := range rows {
		om, os := meanStdev(r.Ours)
		tm, ts := meanStdev(r.Theirs)
		ratio := 0.0
		if tm > 0 {
			ratio = om / tm
		}
		fmt.Fprintf(w, "| %8s | %20s | %20s | %7.3f |\n", r.Test, fmt.Sprintf("%.2f ± %.2f", om, os), fmt.Sprintf("%.2f ± %.2f", tm, ts), ratio)
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := bytes.Split(bytes.TrimSpace([]byte(s)), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("; ")))
}
