package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/lint"
)

type lintFlags struct {
	noSchema bool
	size     bool
	question string
	jsonOut  bool
}

// lintReport is `loop lint --json`.
type lintReport struct {
	File     string         `json:"file"`
	Tools    int            `json:"tools"`
	Chars    int            `json:"characters"`
	Findings []lint.Finding `json:"findings"`
	// ToolRules and SchemaRules count the findings of each family.
	ToolRules   int `json:"tool_rules"`
	SchemaRules int `json:"schema_rules"`
}

// runLint is `loop lint tools.json`: package lint's rules for clear,
// simple tools, then its schema rules unless --no-schema, each family
// with its own count; or, with --size, the size of a request that
// carries the tools.
func runLint(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f lintFlags
	fs := newFlagSet("lint", stderr)
	fs.BoolVar(&f.noSchema, "no-schema", false, "check descriptions, nesting, optional parameters and similar names only, not the schemas that can break llama.cpp's grammar")
	fs.BoolVar(&f.size, "size", false, "print the body of a request that offers the tools, compact, and how many of its characters the tools take")
	fs.StringVar(&f.question, "question", "What is in pom.xml?", "with --size: the user message of the request")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("give one tools file (a JSON array of OpenAI tools, or one tool)")
	}
	tools, err := readToolsFile(fs.Arg(0))
	if err != nil {
		return err
	}
	if f.size {
		return lintSize(stdout, tools, f)
	}
	findings := lint.Linter{Schema: !f.noSchema}.Lint(tools)
	base, schema := lint.Split(findings)
	size := lint.Measure(tools)
	if f.jsonOut {
		return writeJSON(stdout, lintReport{File: fs.Arg(0), Tools: len(tools), Chars: size.Chars, Findings: findings,
			ToolRules: len(base), SchemaRules: len(schema)})
	}
	// The first block is the report of the rules for clear, simple tools
	// alone; the schema rules' findings follow with their own count.
	fmt.Fprintf(stdout, "%s: %v, %d findings\n", fs.Arg(0), size, len(base))
	for _, fd := range base {
		fmt.Fprintf(stdout, "  %v\n", fd)
	}
	if f.noSchema {
		return nil
	}
	fmt.Fprintf(stdout, "%s, schema rules: %d findings\n", fs.Arg(0), len(schema))
	for _, fd := range schema {
		fmt.Fprintf(stdout, "  %v\n", fd)
	}
	_, err = fmt.Fprintf(stdout, "%d findings: %d of the tool rules, %d of the schema rules\n", len(findings), len(base), len(schema))
	return err
}

// lintSize prints the request body and the size line, with each tool's
// characters when there are several.
func lintSize(stdout io.Writer, tools []chat.Tool, f lintFlags) error {
	r, err := lint.Request(tools, f.question)
	if err != nil {
		return err
	}
	if f.jsonOut {
		return writeJSON(stdout, r)
	}
	fmt.Fprintln(stdout, r.Body)
	if len(tools) > 1 {
		for i, t := range tools {
			fmt.Fprintf(stdout, "  %s: %d characters\n", t.Name, r.PerTool[i])
		}
	}
	_, err = fmt.Fprintln(stdout, r)
	return err
}

// readToolsFile reads a JSON array of OpenAI tools, or one tool object.
func readToolsFile(path string) ([]chat.Tool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '{' {
		b = append(append([]byte("["), t...), ']')
	}
	tools, err := chat.ParseTools(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return tools, nil
}
