package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopagent/loop/agent/window"
	"github.com/loopagent/loop/llama"
)

type tokenizeFlags struct {
	modelFlags
	file           string
	pieces         bool
	noParseSpecial bool
	noBOS          bool
	jsonOut        bool
	estimate       bool
	vocabs         []string // [NAME=]FILE.gguf, more vocabularies for --estimate
	charsPerToken  int
}

func runTokenize(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f tokenizeFlags
	fs := newFlagSet("tokenize", stderr)
	f.register(fs)
	fs.StringVarP(&f.file, "file", "f", "", "read the text from a file")
	fs.BoolVar(&f.pieces, "pieces", false, "print each token as id -> 'piece'")
	fs.BoolVar(&f.noParseSpecial, "no-parse-special", false, "tokenize special-token text as plain characters")
	fs.BoolVar(&f.noBOS, "no-bos", false, "do not add the BOS token the model asks for")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	fs.BoolVar(&f.estimate, "estimate", false, "compare the characters-per-token estimate with the real counts: each argument is a sample file, each vocabulary (-m, --vocab) a column")
	fs.StringArrayVar(&f.vocabs, "vocab", nil, "with --estimate: one more vocabulary, [NAME=]FILE.gguf (NAME: the column's name, default the file's tokenizer.ggml.pre); repeat per file")
	fs.IntVar(&f.charsPerToken, "chars-per-token", 4, "with --estimate: the estimate's characters per token")
	if err := parse(fs, args); err != nil {
		return err
	}
	if f.estimate {
		return runEstimates(ctx, f, fs.Args(), stdout, stderr)
	}
	text, err := inputText(f.file, fs.Args())
	if err != nil {
		return err
	}
	m, err := f.load(ctx, stderr, true)
	if err != nil {
		return err
	}
	defer m.Close()
	toks, err := m.Tokenize(text, !f.noBOS, !f.noParseSpecial)
	if err != nil {
		return err
	}
	if f.jsonOut {
		type tok struct {
			ID    llama.Token `json:"id"`
			Piece string      `json:"piece"`
		}
		out := struct {
			Tokens []tok `json:"tokens"`
			Count  int   `json:"count"`
		}{Count: len(toks)}
		for _, t := range toks {
			p, _ := m.TokenPiece(t, true)
			out.Tokens = append(out.Tokens, tok{t, p})
		}
		return writeJSON(stdout, out)
	}
	if f.pieces {
		for _, t := range toks {
			p, _ := m.TokenPiece(t, true)
			fmt.Fprintf(stdout, "%6d -> '%s'\n", t, p)
		}
	} else {
		ids := make([]string, len(toks))
		for i, t := range toks {
			ids[i] = fmt.Sprint(t)
		}
		fmt.Fprintf(stdout, "[%s]\n", strings.Join(ids, ", "))
	}
	fmt.Fprintf(stdout, "Total number of tokens: %d\n", len(toks))
	return nil
}

// inputText returns the text of -f FILE, or the positional arguments.
func inputText(file string, args []string) (string, error) {
	switch {
	case file != "" && len(args) > 0:
		return "", usagef("give either -f FILE or TEXT, not both")
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", err
		}
		return string(b), nil
	case len(args) == 0:
		return "", usagef("no text: pass TEXT or -f FILE")
	}
	return strings.Join(args, " "), nil
}

// estimateReport is `loop tokenize --estimate --json`.
type estimateReport struct {
	Vocabularies  []string             `json:"vocabularies"`
	CharsPerToken int                  `json:"chars_per_token"`
	Rows          []window.EstimateRow `json:"rows"`
}

// runEstimates is `loop tokenize --estimate`: each sample file's
// characters and its tokens in each vocabulary (without BOS, as the
// estimate counts text), compared with ceil(chars / --chars-per-token) by
// window.CompareEstimate. A sample's kind is its file name without the
// extension.
func runEstimates(ctx context.Context, f tokenizeFlags, files []string, stdout, stderr io.Writer) error {
	if len(files) == 0 || f.file != "" {
		return usagef("--estimate: give the sample files as arguments")
	}
	if f.charsPerToken < 1 {
		return usagef("--chars-per-token %d: want 1 or more", f.charsPerToken)
	}
	specs := f.vocabs
	if f.model != "" {
		specs = append([]string{f.model}, specs...)
	}
	if len(specs) == 0 {
		return usagef("--estimate: give a vocabulary with -m FILE or --vocab [NAME=]FILE")
	}
	texts := make([]string, len(files))
	samples := make([]window.EstimateSample, len(files))
	for i, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		texts[i] = string(b)
		samples[i] = window.NewEstimateSample(strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)), texts[i])
	}
	var names []string
	for _, spec := range specs {
		name, path, named := strings.Cut(spec, "=")
		if !named {
			name, path = "", spec
		}
		g := f.modelFlags
		g.model = path
		m, err := g.load(ctx, stderr, true)
		if err != nil {
			return err
		}
		if name == "" {
			v, _ := m.Meta("tokenizer.ggml.pre")
			if name, _ = v.Value.(string); name == "" {
				name = strings.TrimSuffix(filepath.Base(path), ".gguf")
			}
		}
		names = append(names, name)
		for i, text := range texts {
			toks, err := m.Tokenize(text, false, !f.noParseSpecial)
			if err != nil {
				m.Close()
				return fmt.Errorf("%s: %w", files[i], err)
			}
			samples[i].Real = append(samples[i].Real, len(toks))
		}
		m.Close()
	}
	rows := window.CompareEstimate(window.Estimate{CharsPerToken: f.charsPerToken}, samples)
	if f.jsonOut {
		return writeJSON(stdout, estimateReport{Vocabularies: names, CharsPerToken: f.charsPerToken, Rows: rows})
	}
	return window.WriteEstimates(stdout, names, rows)
}
