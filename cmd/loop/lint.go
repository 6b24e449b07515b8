package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/lint"
)

type lintFlags struct {
	jsonOut bool
}

// lintReport is `loop lint --json`.
type lintReport struct {
	File     string         `json:"file"`
	Tools    int            `json:"tools"`
	Chars    int            `json:"characters"`
	Findings []lint.Finding `json:"findings"`
}

// runLint is `loop lint tools.json`: package lint's rules for clear,
// simple tools, with its schema rules unless --no-schema.
func runLint(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f lintFlags
	fs := newFlagSet("lint", stderr)
	noSchema := fs.Bool("no-schema", false, "check descriptions, nesting, optional parameters and similar names only, not the schemas that can break llama.cpp's grammar")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("give one tools file (a JSON array of OpenAI tools)")
	}
	b, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	tools, err := chat.ParseTools(b)
	if err != nil {
		return fmt.Errorf("%s: %w", fs.Arg(0), err)
	}
	findings := lint.Linter{Schema: !*noSchema}.Lint(tools)
	size := lint.Measure(tools)
	if f.jsonOut {
		return writeJSON(stdout, lintReport{File: fs.Arg(0), Tools: len(tools), Chars: size.Chars, Findings: findings})
	}
	fmt.Fprintf(stdout, "%s: %v, %d findings\n", fs.Arg(0), size, len(findings))
	for _, fd := range findings {
		fmt.Fprintf(stdout, "  %v\n", fd)
	}
	return nil
}
