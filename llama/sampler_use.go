package llama

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"strings"
	"unsafe"
)

// MaxInfillCandidates bounds the candidates the infill sampler may see: a
// chain takes it only after a top-k of at most this many tokens.
const MaxInfillCandidates = 1000

// Add appends t to the chain s, which then owns it. A chain cannot be added
// to another (closing the outer one would leave the inner one's members
// dangling), nor can a lazy grammar, which only SampleGrammar and Accept
// may feed. Samplers of two models do not mix.
func (s *Sampler) Add(t *Sampler) error {
	const op = "chain add"
	// The model's lock is taken outside the samplers' locks: Model.Close
	// takes them in the other order. The chain is adopted first, so that
	// the model closes it if it closes meanwhile.
	if t.model != nil && s.model != nil && t.model != s.model {
		return newError(op, t.name, detail(ErrInvalidArgument, "samplers of two models"))
	}
	if t.model != nil && t != s {
		if err := t.model.adopt(s); err != nil {
			return newError(op, t.name, err)
		}
	}
	if err := s.addLocked(t); err != nil {
		return newError(op, t.name, err)
	}
	if t.model != nil {
		t.model.release(t) // the chain frees it now
	}
	return nil
}

func (s *Sampler) addLocked(t *Sampler) error {
	if s == t {
		return detail(ErrInvalidArgument, "a chain cannot contain itself")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case s.s == nil || t.s == nil:
		return ErrClosed
	case s.kind != kindChain:
		return detail(ErrInvalidArgument, "%s is not a chain", s.name)
	case t.kind == kindChain:
		return detail(ErrInvalidArgument, "a chain cannot be added to a chain; add its samplers")
	case t.lazy != nil:
		return detail(ErrInvalidArgument, "a lazy grammar cannot be part of a chain; pass it to SampleGrammar")
	case t.owner != nil:
		return detail(ErrInvalidArgument, "sampler already belongs to a chain")
	case t.model != nil && s.model != nil && t.model != s.model:
		return detail(ErrInvalidArgument, "samplers of two models")
	case t.kind == kindInfill && !s.hasSmallTopK():
		return detail(ErrInvalidArgument, "infill needs a top-k of 1..%d before it: its cost grows with the square of its candidates", MaxInfillCandidates)
	}
	C.llama_sampler_chain_add(s.s, t.s)
	t.owner = s
	s.children = append(s.children, t)
	if t.model != nil {
		s.model = t.model
	}
	return nil
}

func (s *Sampler) hasSmallTopK() bool {
	for _, c := range s.children {
		if c.kind == kindTopK && c.param.k >= 1 && c.param.k <= MaxInfillCandidates {
			return true
		}
	}
	return false
}

// grammars returns the grammar samplers in s (s itself, or a chain's).
func (s *Sampler) grammars() []*C.struct_llama_sampler {
	var out []*C.struct_llama_sampler
	if s.grammar {
		out = append(out, s.s)
	}
	for _, c := range s.children {
		if c.grammar {
			out = append(out, c.s)
		}
	}
	return out
}

// checkModel refuses a sampler that uses one model's vocabulary on a
// context of another.
func (s *Sampler) checkModel(c *Context) error {
	if s.model != nil && s.model != c.model {
		return detail(ErrInvalidArgument, "the sampler was made for %s, the context for %s", s.model.path, c.model.path)
	}
	return nil
}

// Sample picks a token from the logits of output idx of c's last decode
// (-1: the last output) and accepts it. Errors name what went wrong: no
// selecting sampler, or a grammar that allows no token.
func (s *Sampler) Sample(c *Context, idx int) (Token, error) {
	const op = "sample"
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return NoToken, newError(op, s.name, ErrClosed)
	}
	if s.lazy != nil {
		return NoToken, newError(op, s.name, detail(ErrInvalidArgument, "a lazy grammar samples through SampleGrammar"))
	}
	if err := s.checkModel(c); err != nil {
		return NoToken, newError(op, s.name, err)
	}
	if err := c.lock(op); err != nil {
		return NoToken, err
	}
	defer c.mu.Unlock()
	if err := c.checkOutput(idx); err != nil {
		return NoToken, newError(op, s.name, err)
	}
	return s.sampleLocked(c, idx, op)
}

// sampleLocked samples with s alone; s and c are locked.
func (s *Sampler) sampleLocked(c *Context, idx int, op string) (Token, error) {
	n := c.model.nVocab
	s.ensureCandidates(n)
	gs := s.grammars()
	var gp **C.struct_llama_sampler
	if len(gs) > 0 {
		gp = (**C.struct_llama_sampler)(C.malloc(C.size_t(len(gs)) * C.size_t(unsafe.Sizeof(uintptr(0)))))
		defer C.free(unsafe.Pointer(gp))
		copy(unsafe.Slice(gp, len(gs)), gs)
	}
	var errbuf [256]C.char
	t := C.loop_chain_sample(s.s, c.c, C.int32_t(idx), s.cands, C.int32_t(n), gp, C.int32_t(len(gs)), &errbuf[0], C.size_t(len(errbuf)))
	if t == C.LLAMA_TOKEN_NULL {
		return NoToken, sampleError(op, s.name, C.GoString(&errbuf[0]))
	}
	return Token(t), nil
}

// Allows reports whether the grammars in s accept token t next. It is the
// check that rejection-first sampling makes on a single candidate. A lazy
// grammar that has not seen its trigger allows every token.
func (s *Sampler) Allows(t Token) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return false
	}
	for _, g := range s.grammars() {
		if !bool(C.loop_sampler_allows(g, C.llama_token(t))) {
			return false
		}
	}
	return true
}

// Accept tells the sampler that t was chosen, updating penalties, grammars
// and Mirostat state. A token that a grammar in s rejects is refused with
// ErrGrammar (llama.cpp would abort the process).
func (s *Sampler) Accept(t Token) error {
	const op = "accept"
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return newError(op, s.name, ErrClosed)
	}
	if s.model != nil {
		if err := s.model.checkTokens([]Token{t}); err != nil {
			return newError(op, s.name, err)
		}
	}
	if err := s.acceptLocked(t); err != nil {
		return newError(op, s.name, err)
	}
	return nil
}

// acceptLocked accepts t in s, through the watch of a lazy grammar; s is
// locked and t is in the vocabulary.
func (s *Sampler) acceptLocked(t Token) error {
	feed := []Token{t}
	if s.lazy != nil {
		feed = s.lazy.accept(s.model, t)
	}
	for _, tok := range feed {
		for _, g := range s.grammars() {
			if !bool(C.loop_sampler_allows(g, C.llama_token(tok))) {
				return detail(ErrGrammar, "token %d is not allowed here", tok)
			}
		}
		var errbuf [256]C.char
		if !bool(C.loop_sampler_accept(s.s, C.llama_token(tok), &errbuf[0], C.size_t(len(errbuf)))) {
			return detail(ErrGrammar, "%s", C.GoString(&errbuf[0]))
		}
	}
	return nil
}

// Apply runs the sampler over candidates in place and returns the index of
// the selected candidate (-1 when the sampler selects none) and the number of
// candidates left; candidates[:n] holds them, with logits and probabilities
// as the samplers left them.
func (s *Sampler) Apply(candidates []TokenData) (selected, n int, err error) {
	return s.apply(candidates, false)
}

// apply is Apply; llamaOnly runs llama.cpp's own code only (see
// loop_sampler_apply_llama), the reference of the grammar mask's tests.
func (s *Sampler) apply(candidates []TokenData, llamaOnly bool) (selected, n int, err error) {
	const op = "apply"
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return -1, 0, newError(op, s.name, ErrClosed)
	}
	if len(candidates) == 0 {
		return -1, 0, nil
	}
	if s.kind == kindInfill && len(candidates) > MaxInfillCandidates {
		return -1, 0, newError(op, s.name, detail(ErrInvalidArgument, "infill over %d candidates (at most %d)", len(candidates), MaxInfillCandidates))
	}
	// C memory: samplers may keep the pointer during the call only.
	buf := (*C.llama_token_data)(C.malloc(C.size_t(len(candidates)) * C.sizeof_llama_token_data))
	defer C.free(unsafe.Pointer(buf))
	cs := unsafe.Slice((*TokenData)(unsafe.Pointer(buf)), len(candidates))
	copy(cs, candidates)
	arr := C.llama_token_data_array{data: buf, size: C.size_t(len(candidates)), selected: -1}
	var errbuf [256]C.char
	var ok C.bool
	if llamaOnly {
		ok = C.loop_sampler_apply_llama(s.s, &arr, &errbuf[0], C.size_t(len(errbuf)))
	} else {
		ok = C.loop_sampler_apply(s.s, &arr, &errbuf[0], C.size_t(len(errbuf)))
	}
	if !bool(ok) {
		return -1, 0, newError(op, s.name, errors.New(C.GoString(&errbuf[0])))
	}
	n = int(arr.size)
	copy(candidates, unsafe.Slice((*TokenData)(unsafe.Pointer(arr.data)), n))
	return int(arr.selected), n, nil
}

// sampleError turns a bridge message into an error; "grammar: ..." messages
// wrap ErrGrammar.
func sampleError(op, name, msg string) error {
	if rest, ok := strings.CutPrefix(msg, "grammar: "); ok {
		return newError(op, name, detail(ErrGrammar, "%s", rest))
	}
	return newError(op, name, errors.New(msg))
}
