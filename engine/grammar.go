package engine

import (
	"sync"

	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/llama"
)

// CompileGrammar checks GBNF with loop's parser and validator, then
// compiles it with llama.cpp's into a grammar sampler for Request.Grammar.
// The check comes first because llama.cpp's own left-recursion check is
// approximate: a grammar such as root ::= ("a"?)* passes it and then
// overflows the stack on the first token.
func CompileGrammar(m *llama.Model, gbnf string) (*llama.Sampler, error) {
	if err := Check(gbnf); err != nil {
		return nil, err
	}
	return m.NewGrammar(gbnf, "root")
}

// Check parses and validates GBNF in Go, with root as the start rule. It
// remembers the last grammar that passed: an agent sends the same call
// grammar step after step, and one that narrows an edit to a file's text
// (agent/paths) takes tens of milliseconds to check.
func Check(gbnf string) error {
	checked.Lock()
	defer checked.Unlock()
	if checked.ok && checked.gbnf == gbnf {
		return nil
	}
	g, err := grammar.Parse(gbnf)
	if err == nil {
		err = g.Validate("root")
	}
	checked.gbnf, checked.ok = gbnf, err == nil
	return err
}

// checked is the last grammar Check passed.
var checked struct {
	sync.Mutex
	gbnf string
	ok   bool
}

// CompileCalls compiles a tool-call grammar. A lazy grammar waits for its
// triggers: a trigger that is one token of the vocabulary (such as
// <tool_call> in Qwen's) becomes a trigger token, any other a word that
// wakes it anywhere in the output, as llama-server's word triggers do.
// Start triggers wake it only at the start of the output. A nil g
// (tool_choice none) gives a nil sampler.
func CompileCalls(m *llama.Model, g *grammar.CallGrammar) (*llama.Sampler, error) {
	if g == nil {
		return nil, nil
	}
	if err := Check(g.GBNF); err != nil {
		return nil, err
	}
	if !g.Lazy {
		return m.NewGrammar(g.GBNF, "root")
	}
	trig := llama.LazyTriggers{Starts: g.StartTriggers}
	for _, w := range g.Triggers {
		toks, err := m.Tokenize(w, false, true)
		if err != nil {
			return nil, err
		}
		if len(toks) == 1 {
			trig.Tokens = append(trig.Tokens, toks[0])
		} else {
			trig.Words = append(trig.Words, w)
		}
	}
	return m.NewLazyGrammar(g.GBNF, "root", trig)
}
