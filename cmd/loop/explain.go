package main

import (
	"context"
	"io"

	"github.com/loopagent/loop/sampler"
)

func runExplainSampling(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("explain-sampling", stderr)
	jsonOut := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *jsonOut {
		tool, pen := sampler.ExplainTables()
		return writeJSON(stdout, map[string]any{"tool_name": tool, "repeat_penalty": pen})
	}
	return sampler.WriteExplain(stdout)
}
