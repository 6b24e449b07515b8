package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/loopagent/loop/llama"
)

// runQuantize is `loop quantize IN.gguf OUT.gguf TYPE`, llama-quantize in
// process.
func runQuantize(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("quantize", stderr)
	threads := fs.IntP("threads", "t", 0, "threads (0: all CPUs)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 3 {
		return usagef("want IN.gguf OUT.gguf TYPE (%s)", strings.Join(llama.QuantTypes(), ", "))
	}
	if err := llama.Quantize(fs.Arg(0), fs.Arg(1), strings.ToLower(fs.Arg(2)), *threads); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %s\n", fs.Arg(1), strings.ToLower(fs.Arg(2)))
	return nil
}
