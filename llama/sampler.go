package llama

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"
)

// TokenData is one candidate token: its id, logit and probability. It has
// the layout of llama_token_data.
type TokenData struct {
	ID    Token
	Logit float32
	P     float32
}

// Sampler is one of llama.cpp's samplers, or a chain of them. Build a chain
// with NewChain and Add, ending it with a selecting sampler (NewGreedy,
// NewDist or a Mirostat). A Sampler is not safe for concurrent use.
//
// A sampler added to a chain belongs to it: closing the chain frees it, and
// its own Close does nothing. Samplers made from a Model (DRY, logit bias,
// grammars) are closed when the model closes.
type Sampler struct {
	mu       sync.Mutex
	s        *C.struct_llama_sampler
	name     string
	model    *Model     // set for samplers that use the vocabulary
	owner    *Sampler   // the chain this sampler was added to
	children []*Sampler // for a chain: its samplers, in order
	grammar  bool       // a grammar sampler
	cands    *C.llama_token_data
	nCands   int
}

func newSampler(name string, s *C.struct_llama_sampler) *Sampler {
	return &Sampler{s: s, name: name}
}

// NewChain returns an empty sampler chain. With noPerf the chain does not
// time itself.
func NewChain(noPerf bool) *Sampler {
	p := C.llama_sampler_chain_default_params()
	p.no_perf = C.bool(noPerf)
	return newSampler("chain", C.llama_sampler_chain_init(p))
}

// NewGreedy selects the most likely token.
func NewGreedy() *Sampler { return newSampler("greedy", C.llama_sampler_init_greedy()) }

// NewDist samples from the distribution with the given seed.
func NewDist(seed uint32) *Sampler {
	return newSampler("dist", C.llama_sampler_init_dist(C.uint32_t(seed)))
}

// NewTopK keeps the k most likely tokens; k <= 0 keeps all.
func NewTopK(k int) *Sampler { return newSampler("top-k", C.llama_sampler_init_top_k(C.int32_t(k))) }

// NewTopP keeps the smallest set of tokens whose probabilities sum to p.
func NewTopP(p float32, minKeep int) *Sampler {
	return newSampler("top-p", C.llama_sampler_init_top_p(C.float(p), C.size_t(max(minKeep, 0))))
}

// NewMinP keeps tokens whose probability is at least p times the top one's.
func NewMinP(p float32, minKeep int) *Sampler {
	return newSampler("min-p", C.llama_sampler_init_min_p(C.float(p), C.size_t(max(minKeep, 0))))
}

// NewTypical is locally typical sampling with mass p.
func NewTypical(p float32, minKeep int) *Sampler {
	return newSampler("typical", C.llama_sampler_init_typical(C.float(p), C.size_t(max(minKeep, 0))))
}

// NewTemp divides the logits by t; t <= 0 keeps only the top token.
func NewTemp(t float32) *Sampler { return newSampler("temp", C.llama_sampler_init_temp(C.float(t))) }

// NewTempExt is dynamic temperature: t ± delta scaled by entropy^exponent.
func NewTempExt(t, delta, exponent float32) *Sampler {
	return newSampler("temp-ext", C.llama_sampler_init_temp_ext(C.float(t), C.float(delta), C.float(exponent)))
}

// NewXTC removes the top tokens above threshold t with probability p.
func NewXTC(p, t float32, minKeep int, seed uint32) *Sampler {
	return newSampler("xtc", C.llama_sampler_init_xtc(C.float(p), C.float(t), C.size_t(max(minKeep, 0)), C.uint32_t(seed)))
}

// NewTopNSigma keeps tokens within n standard deviations of the top logit.
func NewTopNSigma(n float32) *Sampler {
	return newSampler("top-n-sigma", C.llama_sampler_init_top_n_sigma(C.float(n)))
}

// NewMirostat is Mirostat 1.0 over a vocabulary of nVocab tokens.
func NewMirostat(nVocab int, seed uint32, tau, eta float32, m int) *Sampler {
	return newSampler("mirostat", C.llama_sampler_init_mirostat(C.int32_t(nVocab), C.uint32_t(seed), C.float(tau), C.float(eta), C.int32_t(m)))
}

// NewMirostatV2 is Mirostat 2.0.
func NewMirostatV2(seed uint32, tau, eta float32) *Sampler {
	return newSampler("mirostat-v2", C.llama_sampler_init_mirostat_v2(C.uint32_t(seed), C.float(tau), C.float(eta)))
}

// NewPenalties applies the repeat, frequency and presence penalties over the
// last lastN accepted tokens (-1: the whole context, 0: off). llama.cpp
// divides positive logits by repeat and multiplies negative ones.
func NewPenalties(lastN int, repeat, freq, present float32) *Sampler {
	return newSampler("penalties", C.llama_sampler_init_penalties(C.int32_t(lastN), C.float(repeat), C.float(freq), C.float(present)))
}

// NewDRY returns the DRY repetition sampler.
func (m *Model) NewDRY(multiplier, base float32, allowedLength, lastN int, breakers []string) (*Sampler, error) {
	var s *Sampler
	err := m.use("dry sampler", func() error {
		cb := make([]*C.char, len(breakers))
		for i, b := range breakers {
			cb[i] = C.CString(b)
			defer C.free(unsafe.Pointer(cb[i]))
		}
		var pb **C.char
		if len(cb) > 0 {
			pb = (**C.char)(C.malloc(C.size_t(len(cb)) * C.size_t(unsafe.Sizeof(uintptr(0)))))
			defer C.free(unsafe.Pointer(pb))
			copy(unsafe.Slice(pb, len(cb)), cb)
		}
		s = newSampler("dry", C.llama_sampler_init_dry(m.vocab, C.llama_model_n_ctx_train(m.m), C.float(multiplier),
			C.float(base), C.int32_t(allowedLength), C.int32_t(lastN), pb, C.size_t(len(cb))))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, m.adoptSampler(s)
}

// NewInfill returns llama.cpp's fill-in-the-middle sampler, meant to follow
// top-k and top-p: it prefers end-of-generation when that is likely and
// merges candidates that share a prefix.
func (m *Model) NewInfill() (*Sampler, error) {
	var s *Sampler
	err := m.use("infill sampler", func() error {
		s = newSampler("infill", C.llama_sampler_init_infill(m.vocab))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, m.adoptSampler(s)
}

// NewLogitBias adds bias[token] to the logits of the given tokens.
func (m *Model) NewLogitBias(bias map[Token]float32) (*Sampler, error) {
	var s *Sampler
	err := m.use("logit bias", func() error {
		lb := make([]C.llama_logit_bias, 0, len(bias))
		for t, b := range bias {
			if t < 0 || int(t) >= m.nVocab {
				return newError("logit bias", "", detail(ErrInvalidArgument, "token %d is outside the vocabulary of %d", t, m.nVocab))
			}
			lb = append(lb, C.llama_logit_bias{token: C.llama_token(t), bias: C.float(b)})
		}
		var p *C.llama_logit_bias
		if len(lb) > 0 {
			p = (*C.llama_logit_bias)(C.malloc(C.size_t(len(lb)) * C.sizeof_llama_logit_bias))
			defer C.free(unsafe.Pointer(p))
			copy(unsafe.Slice(p, len(lb)), lb)
		}
		s = newSampler("logit-bias", C.llama_sampler_init_logit_bias(C.int32_t(m.nVocab), C.int32_t(len(lb)), p))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, m.adoptSampler(s)
}

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
	return m.newGrammar(gbnf, root, false, nil, nil)
}

// NewLazyGrammar returns a grammar sampler that stays inactive until the
// output matches one of the trigger patterns (regular expressions matched
// from the start of the output; the grammar sees the text from the first
// capture group) or one of the trigger tokens is sampled.
func (m *Model) NewLazyGrammar(gbnf, root string, patterns []string, tokens []Token) (*Sampler, error) {
	if len(patterns) == 0 && len(tokens) == 0 {
		return nil, newError("new grammar", "", detail(ErrGrammar, "a lazy grammar needs a trigger pattern or token"))
	}
	return m.newGrammar(gbnf, root, true, patterns, tokens)
}

func (m *Model) newGrammar(gbnf, root string, lazy bool, patterns []string, tokens []Token) (*Sampler, error) {
	const op = "new grammar"
	if root == "" {
		root = "root"
	}
	var s *Sampler
	err := m.use(op, func() error {
		if len(gbnf) == 0 {
			return newError(op, "", detail(ErrGrammar, "empty grammar"))
		}
		if err := m.checkTokens(tokens); err != nil {
			return newError(op, "", err)
		}
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
		g := C.loop_sampler_init_grammar(m.vocab, cg, croot, C.bool(lazy), pp, C.size_t(len(patterns)), pt,
			C.size_t(len(tokens)), &errbuf[0], C.size_t(len(errbuf)))
		logged := errs.stop()
		if g == nil {
			return newError(op, "", detail(ErrGrammar, "%s", grammarMessage(C.GoString(&errbuf[0]), logged)))
		}
		s = newSampler("grammar", g)
		s.grammar = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, m.adoptSampler(s)
}

func (m *Model) adoptSampler(s *Sampler) error {
	s.model = m
	if err := m.adopt(s); err != nil {
		s.close()
		return newError("sampler", s.name, err)
	}
	return nil
}

// Name returns the sampler's name ("top-k", "grammar", "chain", ...).
func (s *Sampler) Name() string { return s.name }

// Add appends t to the chain s, which then owns it.
func (s *Sampler) Add(t *Sampler) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case s.s == nil || t.s == nil:
		return newError("chain add", t.name, ErrClosed)
	case s.name != "chain":
		return newError("chain add", t.name, detail(ErrInvalidArgument, "%s is not a chain", s.name))
	case t.owner != nil || t == s:
		return newError("chain add", t.name, detail(ErrInvalidArgument, "sampler already belongs to a chain"))
	case t.model != nil && s.model != nil && t.model != s.model:
		return newError("chain add", t.name, detail(ErrInvalidArgument, "samplers of two models"))
	}
	if t.model != nil && s.model == nil {
		if err := t.model.adopt(s); err != nil {
			return newError("chain add", t.name, err)
		}
		s.model = t.model
	}
	if t.model != nil {
		t.model.release(t) // the chain frees it now
	}
	C.llama_sampler_chain_add(s.s, t.s)
	t.owner = s
	s.children = append(s.children, t)
	return nil
}

// Samplers returns the samplers of a chain, in order.
func (s *Sampler) Samplers() []*Sampler { return s.children }

// Close frees a sampler that is not part of a chain, or a chain with all of
// its samplers. Calling it again does nothing.
func (s *Sampler) Close() error {
	if s.owner != nil {
		return nil
	}
	s.close()
	if s.model != nil {
		s.model.release(s)
	}
	return nil
}

func (s *Sampler) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return
	}
	C.llama_sampler_free(s.s)
	s.s = nil
	for _, c := range s.children {
		c.mu.Lock()
		c.s = nil
		c.mu.Unlock()
	}
	if s.cands != nil {
		C.free(unsafe.Pointer(s.cands))
		s.cands = nil
	}
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
	if err := c.lock(op); err != nil {
		return NoToken, err
	}
	defer c.mu.Unlock()
	if err := c.checkOutput(idx); err != nil {
		return NoToken, newError(op, s.name, err)
	}
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
// check that rejection-first sampling makes on a single candidate.
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
	for _, g := range s.grammars() {
		if !bool(C.loop_sampler_allows(g, C.llama_token(t))) {
			return newError(op, s.name, detail(ErrGrammar, "token %d is not allowed here", t))
		}
	}
	var errbuf [256]C.char
	if !bool(C.loop_sampler_accept(s.s, C.llama_token(t), &errbuf[0], C.size_t(len(errbuf)))) {
		return newError(op, s.name, detail(ErrGrammar, "%s", C.GoString(&errbuf[0])))
	}
	return nil
}

// Apply runs the sampler over candidates in place and returns the index of
// the selected candidate (-1 when the sampler selects none) and the number of
// candidates left; candidates[:n] holds them, with logits and probabilities
// as the samplers left them.
func (s *Sampler) Apply(candidates []TokenData) (selected, n int, err error) {
	const op = "apply"
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return -1, 0, newError(op, s.name, ErrClosed)
	}
	if len(candidates) == 0 {
		return -1, 0, nil
	}
	// C memory: samplers may keep the pointer during the call only.
	buf := (*C.llama_token_data)(C.malloc(C.size_t(len(candidates)) * C.sizeof_llama_token_data))
	defer C.free(unsafe.Pointer(buf))
	cs := unsafe.Slice((*TokenData)(unsafe.Pointer(buf)), len(candidates))
	copy(cs, candidates)
	arr := C.llama_token_data_array{data: buf, size: C.size_t(len(candidates)), selected: -1}
	var errbuf [256]C.char
	if !bool(C.loop_sampler_apply(s.s, &arr, &errbuf[0], C.size_t(len(errbuf)))) {
		return -1, 0, newError(op, s.name, errors.New(C.GoString(&errbuf[0])))
	}
	n = int(arr.size)
	copy(candidates, unsafe.Slice((*TokenData)(unsafe.Pointer(arr.data)), n))
	return int(arr.selected), n, nil
}

// Reset clears the sampler's state (penalty history, grammar position).
func (s *Sampler) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s != nil {
		C.llama_sampler_reset(s.s)
	}
}

// Seed returns the seed of a dist, XTC or Mirostat sampler (or a chain's).
func (s *Sampler) Seed() uint32 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return 0
	}
	return uint32(C.llama_sampler_get_seed(s.s))
}

// SamplerPerf is the chain's timing (llama_perf_sampler).
type SamplerPerf struct {
	SampleMs float64
	Samples  int
}

// Perf returns a chain's timing.
func (s *Sampler) Perf() SamplerPerf {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil || s.name != "chain" {
		return SamplerPerf{}
	}
	d := C.llama_perf_sampler(s.s)
	return SamplerPerf{SampleMs: float64(d.t_sample_ms), Samples: int(d.n_sample)}
}

// String describes the sampler, and a chain's members, for logs.
func (s *Sampler) String() string {
	if len(s.children) == 0 {
		return s.name
	}
	names := make([]string, len(s.children))
	for i, c := range s.children {
		names[i] = c.name
	}
	return fmt.Sprintf("chain%v", names)
}

// grammarMessage picks the reason out of what llama.cpp's grammar parser
// printed ("parse: error parsing grammar: Undefined rule identifier 'item'",
// followed by the grammar) or logged.
func grammarMessage(printed, logged string) string {
	if _, after, ok := strings.Cut(printed, "error parsing grammar: "); ok {
		line, _, _ := strings.Cut(after, "\n")
		return strings.TrimSpace(line)
	}
	for _, line := range strings.Split(printed+"\n"+logged, "\n") {
		line = strings.TrimSpace(line)
		if _, after, ok := strings.Cut(line, "llama_grammar_init_impl: "); ok {
			line = after
		}
		if line != "" && line != "failed to parse grammar" {
			return line
		}
	}
	return "llama.cpp could not parse it"
}

// GrammarMode says how SampleGrammar applies a grammar.
type GrammarMode int

const (
	// RejectionFirst samples from the chain alone, checks that one token
	// against the grammar, and applies the grammar to the full candidate
	// list only when it rejects the token. It is the default.
	RejectionFirst GrammarMode = iota
	// GrammarFirst applies the grammar to every candidate before the chain,
	// as llama.cpp's common sampler does at the pinned commit.
	GrammarFirst
)

// SampleGrammar samples from output idx of c's last decode with the chain s
// under grammar g, a grammar sampler that is not part of s, and accepts the
// token in both. It reports whether the grammar rejected the chain's first
// choice (always false in GrammarFirst mode). An error wrapping ErrGrammar
// means the grammar allows no token here.
func (s *Sampler) SampleGrammar(c *Context, idx int, g *Sampler, mode GrammarMode) (tok Token, rejected bool, err error) {
	const op = "sample with grammar"
	s.mu.Lock()
	defer s.mu.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	if s.s == nil || g.s == nil {
		return NoToken, false, newError(op, s.name, ErrClosed)
	}
	if !g.grammar || g.owner != nil {
		return NoToken, false, newError(op, g.name, detail(ErrInvalidArgument, "g must be a grammar sampler outside any chain"))
	}
	if err := c.lock(op); err != nil {
		return NoToken, false, err
	}
	defer c.mu.Unlock()
	if err := c.checkOutput(idx); err != nil {
		return NoToken, false, newError(op, s.name, err)
	}
	s.ensureCandidates(c.model.nVocab)
	var errbuf [256]C.char
	var rej C.bool
	t := C.loop_sample_grammar(s.s, g.s, c.c, C.int32_t(idx), s.cands, C.int32_t(c.model.nVocab),
		C.bool(mode == RejectionFirst), &rej, &errbuf[0], C.size_t(len(errbuf)))
	if t == C.LLAMA_TOKEN_NULL {
		return NoToken, bool(rej), sampleError(op, s.name, C.GoString(&errbuf[0]))
	}
	return Token(t), bool(rej), nil
}

// ensureCandidates makes sure the candidate buffer holds n tokens.
func (s *Sampler) ensureCandidates(n int) {
	if s.nCands < n {
		C.free(unsafe.Pointer(s.cands))
		s.cands = (*C.llama_token_data)(C.malloc(C.size_t(n) * C.sizeof_llama_token_data))
		s.nCands = n
	}
}

// sampleError turns a bridge message into an error; "grammar: ..." messages
// wrap ErrGrammar.
func sampleError(op, name, msg string) error {
	if rest, ok := strings.CutPrefix(msg, "grammar: "); ok {
		return newError(op, name, detail(ErrGrammar, "%s", rest))
	}
	return newError(op, name, errors.New(msg))
}

// CheckGrammar parses GBNF with llama.cpp's own parser, without a model:
// the check the grammar package's goldens and `loop grammar --check` make.
// Token references (<|im_end|>, <[id]>) need a vocabulary and are reported
// as errors here; use Model.NewGrammar for those.
func CheckGrammar(gbnf, root string) error {
	const op = "check grammar"
	initBackend()
	if gbnf == "" {
		return newError(op, "", detail(ErrGrammar, "empty grammar"))
	}
	if root == "" {
		root = "root"
	}
	cg, croot := C.CString(gbnf), C.CString(root)
	defer C.free(unsafe.Pointer(cg))
	defer C.free(unsafe.Pointer(croot))
	var errbuf [4096]C.char
	errs := captureErrors()
	g := C.loop_sampler_init_grammar(nil, cg, croot, false, nil, 0, nil, 0, &errbuf[0], C.size_t(len(errbuf)))
	logged := errs.stop()
	if g == nil {
		return newError(op, "", detail(ErrGrammar, "%s", grammarMessage(C.GoString(&errbuf[0]), logged)))
	}
	C.llama_sampler_free(g)
	return nil
}
