package llama

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unsafe"
)

// MaxGrammarDepth bounds the nesting of parentheses in a grammar:
// llama.cpp's parser recurses once per level and overflows the C stack
// (killing the process) near 200,000.
const MaxGrammarDepth = 1000

// NewGrammar returns a sampler that allows only text matching the GBNF
// grammar, starting at rule root ("root" when empty). A grammar that does not
// parse, or an empty one, is an error wrapping ErrGrammar: the sampler never
// runs unconstrained.
//
// llama.cpp's left-recursion check is approximate: a grammar in which an
// unbounded repetition can match the empty string, such as
// root ::= ("a"?)*, passes it and overflows the stack later. Grammars from
// outside the program should go through engine.CompileGrammar, which
// validates them in Go first.
func (m *Model) NewGrammar(gbnf, root string) (*Sampler, error) {
	return m.newGrammar(gbnf, root, nil)
}

// LazyTriggers are what wakes a lazy grammar.
type LazyTriggers struct {
	// Words wake the grammar when the output contains one of them; the
	// grammar then reads the output from the word's first byte on.
	Words []string
	// Tokens wake the grammar when one of them is sampled; the grammar
	// reads the output from that token on.
	Tokens []Token
	// Starts wake the grammar only when the output begins with one of
	// them, after white space (llama-server's full-output trigger
	// patterns, such as a bare {"name" call at the start of a reply).
	Starts []string
}

// NewLazyGrammar returns a grammar sampler that stays inactive, allowing
// any token, until one of its triggers appears in the output. It watches
// for them in Go over the last few bytes of output, so its cost per token
// stays the same however long the text before the trigger (llama.cpp's own
// lazy grammar matches a regular expression against all of it on every
// token, and overflows its stack after about 7,000 tokens). Feed it with
// SampleGrammar or Accept; it cannot be part of a chain.
func (m *Model) NewLazyGrammar(gbnf, root string, trig LazyTriggers) (*Sampler, error) {
	if len(trig.Words) == 0 && len(trig.Tokens) == 0 && len(trig.Starts) == 0 {
		return nil, newError("new grammar", "", detail(ErrGrammar, "a lazy grammar needs a trigger word or token"))
	}
	for _, w := range slices.Concat(trig.Words, trig.Starts) {
		if w == "" {
			return nil, newError("new grammar", "", detail(ErrGrammar, "empty trigger word"))
		}
	}
	return m.newGrammar(gbnf, root, &trig)
}

func (m *Model) newGrammar(gbnf, root string, trig *LazyTriggers) (*Sampler, error) {
	const op = "new grammar"
	if root == "" {
		root = "root"
	}
	if err := checkGrammarText(gbnf); err != nil {
		return nil, newError(op, "", err)
	}
	var s *Sampler
	err := m.useVocab(op, func() error {
		var tokens []Token
		var patterns []string
		if trig != nil {
			if err := m.checkTokens(trig.Tokens); err != nil {
				return newError(op, "", err)
			}
			tokens = trig.Tokens
			// Go decides when a start word wakes the grammar, and feeds
			// llama.cpp the output from it on, where it finds it as a word.
			patterns = wordPatterns(slices.Concat(trig.Words, trig.Starts))
		}
		g, err := m.grammarSampler(gbnf, root, trig != nil, patterns, tokens)
		if err != nil {
			return newError(op, "", err)
		}
		s = newSampler("grammar", kindGrammar, stageParams{}, g)
		s.grammar = true
		if trig != nil {
			s.lazy = newLazyWatch(*trig)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, m.adoptSampler(s)
}

// wordPatterns is llama.cpp's trigger pattern for words: any text, then one
// of the words (the capture where the grammar starts), then anything. Go
// feeds llama.cpp only the last few tokens, once the word has appeared.
func wordPatterns(words []string) []string {
	if len(words) == 0 {
		return nil
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = regexp.QuoteMeta(w)
	}
	return []string{`[\s\S]*?(` + strings.Join(quoted, "|") + `)[\s\S]*`}
}

// grammarSampler returns a new grammar sampler: a clone of the model's
// last one when the text, root and triggers are the same, else one that
// llama.cpp parses, whose clone is kept for next time. The caller holds
// the vocabulary (useVocab).
func (m *Model) grammarSampler(gbnf, root string, lazy bool, patterns []string, tokens []Token) (*C.struct_llama_sampler, error) {
	key := fmt.Sprintf("%q %v %q %v\x00", root, lazy, patterns, tokens) + gbnf
	m.dryMu.Lock()
	defer m.dryMu.Unlock()
	if m.grammarProto != nil && m.grammarKey == key {
		if g := C.llama_sampler_clone(m.grammarProto); g != nil {
			return g, nil
		}
	}
	g, err := initGrammar(m.vocab, gbnf, root, lazy, patterns, tokens)
	if err != nil {
		return nil, err
	}
	if proto := C.llama_sampler_clone(g); proto != nil {
		if m.grammarProto != nil {
			C.llama_sampler_free(m.grammarProto)
		}
		m.grammarProto, m.grammarKey = proto, key
	}
	return g, nil
}

// initGrammar builds a grammar sampler; vocab may be nil to check a
// grammar alone. Parse errors come back from llama.cpp's parser through
// the bridge, never through stderr.
func initGrammar(vocab *C.struct_llama_vocab, gbnf, root string, lazy bool, patterns []string, tokens []Token) (*C.struct_llama_sampler, error) {
	cg, croot := C.CString(gbnf), C.CString(root)
	defer C.free(unsafe.Pointer(cg))
	defer C.free(unsafe.Pointer(croot))
	var pp **C.char
	if len(patterns) > 0 {
		pp = (**C.char)(C.malloc(C.size_t(len(patterns)) * C.size_t(unsafe.Sizeof(uintptr(0)))))
		defer C.free(unsafe.Pointer(pp))
		ps := unsafe.Slice(pp, len(patterns))
		for i, p := range patterns {
			ps[i] = C.CString(p)
			defer C.free(unsafe.Pointer(ps[i]))
		}
	}
	var pt *C.llama_token
	if len(tokens) > 0 {
		pt = (*C.llama_token)(C.malloc(C.size_t(len(tokens)) * C.sizeof_llama_token))
		defer C.free(unsafe.Pointer(pt))
		copy(unsafe.Slice((*Token)(unsafe.Pointer(pt)), len(tokens)), tokens)
	}
	var errbuf [4096]C.char
	errs := captureErrors()
	g := C.loop_sampler_init_grammar(vocab, cg, croot, C.bool(lazy), pp, C.size_t(len(patterns)), pt,
		C.size_t(len(tokens)), &errbuf[0], C.size_t(len(errbuf)))
	logged := errs.stop()
	if g == nil {
		msg := C.GoString(&errbuf[0])
		if msg == "" {
			msg = logged
		}
		if msg == "" {
			msg = "llama.cpp could not parse it"
		}
		return nil, detail(ErrGrammar, "%s", msg)
	}
	return g, nil
}

// checkGrammarText refuses an empty grammar, and one whose parentheses nest
// deeper than MaxGrammarDepth, before llama.cpp's recursive parser sees it.
// Parentheses inside strings, character classes and comments do not count.
func checkGrammarText(gbnf string) error {
	if len(gbnf) == 0 {
		return detail(ErrGrammar, "empty grammar")
	}
	depth := 0
	for i := 0; i < len(gbnf); i++ {
		switch gbnf[i] {
		case '"', '[':
			i = skipQuoted(gbnf, i)
		case '#':
			for i < len(gbnf) && gbnf[i] != '\n' {
				i++
			}
		case '(':
			if depth++; depth > MaxGrammarDepth {
				return detail(ErrGrammar, "parentheses nest deeper than %d levels", MaxGrammarDepth)
			}
		case ')':
			depth = max(depth-1, 0)
		}
	}
	return nil
}

// skipQuoted returns the index of the character that closes the string or
// character class opening at i, skipping escapes.
func skipQuoted(s string, i int) int {
	end := byte('"')
	if s[i] == '[' {
		end = ']'
	}
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case end:
			return i
		}
	}
	return i
}

// CheckGrammar parses GBNF with llama.cpp's own parser, without a model:
// the check the grammar package's goldens and `loop grammar --check` make.
// Token references (<|im_end|>, <[id]>) need a vocabulary and are reported
// as errors here; use Model.NewGrammar for those.
func CheckGrammar(gbnf, root string) error {
	const op = "check grammar"
	initBackend()
	if root == "" {
		root = "root"
	}
	if err := checkGrammarText(gbnf); err != nil {
		return newError(op, "", err)
	}
	g, err := initGrammar(nil, gbnf, root, false, nil, nil)
	if err != nil {
		return newError(op, "", err)
	}
	C.llama_sampler_free(g)
	return nil
}
