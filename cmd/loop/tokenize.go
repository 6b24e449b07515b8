package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loopagent/loop/llama"
)

type tokenizeFlags struct {
	modelFlags
	file           string
	pieces         bool
	noParseSpecial bool
	noBOS          bool
	jsonOut        bool
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
	if err := parse(fs, args); err != nil {
		return err
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
