package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/loopagent/loop/agent/session"
	"github.com/loopagent/loop/internal/termtext"
)

// runSessions is `loop sessions`: the sessions of a workspace, oldest
// first, each with its start, first task, last outcome, steps and disk
// use, and the workspace's KV states against their cap.
func runSessions(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sessions", stderr)
	dir := fs.StringP("directory", "C", ".", "the workspace whose sessions to list")
	jsonOut := fs.Bool("json", false, "write the sessions as JSON")
	capMiB := fs.Int("session-cap", 0, "the cap to show, in MiB, as loop run's --session-cap (0: 2048)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("loop sessions takes no arguments, got %q", fs.Args())
	}
	if *capMiB < 0 {
		return usagef("--session-cap %d: want 0 (2048) or more MiB", *capMiB)
	}
	if err := readableDir(*dir); err != nil {
		return err
	}
	st, err := session.Open("", *dir)
	if err != nil {
		return err
	}
	st.Cap = int64(*capMiB) << 20
	list, err := st.List()
	if err != nil {
		return err
	}
	var states, all int64
	for _, in := range list {
		states += in.StateBytes
		all += in.Bytes
	}
	limit := st.Cap
	if limit == 0 {
		limit = session.DefaultCap
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Workspace  string         `json:"workspace"`
			Dir        string         `json:"dir"`
			Sessions   []session.Info `json:"sessions"`
			StateBytes int64          `json:"state_bytes"`
			Bytes      int64          `json:"bytes"`
			CapBytes   int64          `json:"cap_bytes"`
		}{st.Workspace, st.Dir, orEmpty(list), states, all, limit})
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tstarted\ttask\toutcome\truns\tsteps\tKV state\tdisk")
	for _, in := range list {
		kv := "-"
		if in.StateBytes > 0 {
			kv = fmt.Sprintf("%d tokens", in.StateTokens)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\t%s\n", in.ID, in.Start.Local().Format("2006-01-02 15:04"),
			shortTask(in.Task), in.Outcome, in.Runs, in.Steps, kv, byteSize(in.Bytes))
	}
	tw.Flush()
	fmt.Fprintf(stdout, "%d sessions in %s: KV states %s of the cap %s, all files %s\n", len(list), st.Dir, byteSize(states), byteSize(limit), byteSize(all))
	return nil
}

// shortTask is a task on one line of at most 40 characters, safe for a
// terminal.
func shortTask(task string) string {
	task = strings.Join(strings.Fields(termtext.Strip(task)), " ")
	if r := []rune(task); len(r) > 40 {
		task = string(r[:39]) + "…"
	}
	return task
}

// byteSize writes a size in bytes, KiB, MiB or GiB, with one decimal.
func byteSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

func orEmpty(l []session.Info) []session.Info {
	if l == nil {
		return []session.Info{}
	}
	return l
}
