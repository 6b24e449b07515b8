package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/llama"
)

type grammarFlags struct {
	check, schema, tools string
	choice               string
	parallel             bool
	maxCalls             int
	format               string
	whitespace           string
	jsonOut              bool
}

// grammarReport is what `loop grammar` prints with --json.
type grammarReport struct {
	GBNF     string         `json:"gbnf,omitempty"`
	Rules    int            `json:"rules"`
	Bytes    int            `json:"bytes"`
	BuildMs  float64        `json:"build_ms,omitempty"`
	Lazy     bool           `json:"lazy,omitempty"`
	Triggers []string       `json:"triggers,omitempty"`
	Notes    []grammar.Note `json:"notes,omitempty"`
	GoParse  string         `json:"go_parser"`
	Llama    string         `json:"llama_cpp_parser"`
}

func runGrammar(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f grammarFlags
	fs := newFlagSet("grammar", stderr)
	fs.StringVar(&f.check, "check", "", "check a GBNF file with loop's parser and llama.cpp's")
	fs.StringVar(&f.schema, "schema", "", "print the grammar of a JSON Schema file")
	fs.StringVar(&f.tools, "tools", "", "print the tool-call grammar of an OpenAI tools JSON file")
	fs.StringVar(&f.choice, "tool-choice", "auto", `tool_choice: auto, required, none, or a function name`)
	fs.BoolVar(&f.parallel, "parallel", false, "allow several calls (parallel_tool_calls)")
	fs.IntVar(&f.maxCalls, "max-calls", 0, "with --parallel, the most calls (0: no limit)")
	fs.StringVar(&f.format, "format", "hermes", "call format: hermes (<tool_call> JSON) or prompt ({\"tool\"|\"answer\"})")
	fs.StringVar(&f.whitespace, "whitespace", "single", "whitespace between JSON tokens: single, compact or flexible")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	n := 0
	for _, s := range []string{f.check, f.schema, f.tools} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return usagef("give exactly one of --check FILE, --schema FILE or --tools FILE")
	}
	rep, err := f.build()
	if err != nil {
		return err
	}
	checkBoth(rep)
	if f.jsonOut {
		return writeJSON(stdout, rep)
	}
	if f.check == "" {
		io.WriteString(stdout, rep.GBNF)
	}
	fmt.Fprintf(stderr, "%d rules, %d bytes", rep.Rules, rep.Bytes)
	if rep.BuildMs > 0 {
		fmt.Fprintf(stderr, ", built in %.2f ms", rep.BuildMs)
	}
	if rep.Lazy {
		fmt.Fprintf(stderr, ", lazy until %q", rep.Triggers)
	}
	fmt.Fprintf(stderr, "\nloop's parser: %s\nllama.cpp's parser: %s\n", rep.GoParse, rep.Llama)
	for _, note := range rep.Notes {
		fmt.Fprintf(stderr, "note: %s\n", note)
	}
	if rep.GoParse != "ok" || rep.Llama != "ok" {
		return fmt.Errorf("the grammar does not parse")
	}
	return nil
}

func (f *grammarFlags) build() (*grammarReport, error) {
	ws, err := whitespace(f.whitespace)
	if err != nil {
		return nil, err
	}
	opts := grammar.Options{Whitespace: ws}
	rep := &grammarReport{}
	start := time.Now()
	switch {
	case f.check != "":
		b, err := os.ReadFile(f.check)
		if err != nil {
			return nil, err
		}
		rep.GBNF = string(b)
		return rep, nil
	case f.schema != "":
		b, err := os.ReadFile(f.schema)
		if err != nil {
			return nil, err
		}
		gb := grammar.NewBuilder(opts)
		r, err := gb.Schema("root-value", "", json.RawMessage(b))
		if err != nil {
			return nil, err
		}
		rep.GBNF, rep.Notes = gb.GBNF(gb.Rule("root", r)), gb.Notes()
	default:
		cg, err := f.toolGrammar(opts)
		if err != nil {
			return nil, err
		}
		if cg == nil {
			return nil, fmt.Errorf("tool_choice none: no grammar")
		}
		rep.GBNF, rep.Lazy, rep.Triggers, rep.Notes = cg.GBNF, cg.Lazy, cg.Triggers, cg.Notes
	}
	rep.BuildMs = float64(time.Since(start).Microseconds()) / 1000
	return rep, nil
}

func (f *grammarFlags) toolGrammar(opts grammar.Options) (*grammar.CallGrammar, error) {
	b, err := os.ReadFile(f.tools)
	if err != nil {
		return nil, err
	}
	tools, err := grammar.ParseTools(b)
	if err != nil {
		return nil, err
	}
	choice, err := toolChoice(f.choice)
	if err != nil {
		return nil, err
	}
	co := grammar.CallOptions{Options: opts, Choice: choice, Parallel: f.parallel, MaxCalls: f.maxCalls}
	switch f.format {
	case "hermes":
		return grammar.ToolCalls(grammar.Hermes, tools, co)
	case "prompt":
		return grammar.PromptBased(tools, co)
	}
	return nil, usagef("--format %q: want hermes or prompt", f.format)
}

// checkBoth parses the grammar with loop's parser and llama.cpp's.
func checkBoth(rep *grammarReport) {
	rep.GoParse, rep.Llama = "ok", "ok"
	g, err := grammar.Parse(rep.GBNF)
	if err == nil {
		err = g.Validate("root")
	}
	if err != nil {
		rep.GoParse = err.Error()
	} else {
		rep.Rules = len(g.Rules)
	}
	rep.Bytes = len(rep.GBNF)
	if rep.GoParse != "ok" {
		// llama.cpp's parser can crash on grammars Validate refuses.
		rep.Llama = "not tried: loop's parser refused the grammar"
		return
	}
	if err := llama.CheckGrammar(rep.GBNF, "root"); err != nil {
		rep.Llama = err.Error()
	}
}
