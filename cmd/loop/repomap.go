package main

import (
	"context"
	"fmt"
	"io"

	"github.com/loopagent/loop/agent/repomap"
)

type mapFlags struct {
	modelFlags
	dir       string
	tokens    int
	mentioned []string
	jsonOut   bool
}

// tokenCounter counts with a model's vocabulary, as the prompt will.
type tokenCounter struct {
	tokenize func(string) int
}

func (c tokenCounter) Count(s string) int { return c.tokenize(s) }

// runMap prints the repository map of a directory within a token budget:
// counted at 4 characters a token, or with -m by the model's tokenizer.
func runMap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f mapFlags
	fs := newFlagSet("map", stderr)
	f.register(fs)
	fs.StringVarP(&f.dir, "dir", "C", ".", "the repository's directory")
	fs.IntVar(&f.tokens, "tokens", repomap.DefaultTokens, "the map's budget in tokens (negative: no limit)")
	fs.StringArrayVar(&f.mentioned, "file", nil, "a file of the conversation, relative to the directory; ranks what it uses first (repeatable)")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q", fs.Args())
	}
	opt := repomap.Options{Tokens: f.tokens, Mentioned: f.mentioned}
	if f.tokens == 0 {
		opt.Tokens = -1 // 0 on the command line: nothing fits; take it as no limit
	}
	if f.model != "" {
		m, err := f.load(ctx, stderr, true)
		if err != nil {
			return err
		}
		defer m.Close()
		opt.Counter = tokenCounter{func(s string) int {
			toks, err := m.Tokenize(s, false, false)
			if err != nil {
				return (len(s) + 3) / 4
			}
			return len(toks)
		}}
	}
	mp, err := repomap.Scan(f.dir, opt)
	if err != nil {
		return err
	}
	if f.jsonOut {
		return writeJSON(stdout, mp)
	}
	if _, err := io.WriteString(stdout, mp.Text); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stderr, "map: %d of %d files, %d tokens (budget %d), sources %d bytes\n",
		len(mp.Files), mp.Scanned, mp.Tokens, f.tokens, mp.Sources)
	return err
}
