package llama

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
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
	kind     stageKind
	param    stageParams
	model    *Model     // set for samplers that use the vocabulary
	owner    *Sampler   // the chain this sampler was added to
	children []*Sampler // for a chain: its samplers, in order
	grammar  bool       // a grammar sampler
	lazy     *lazyWatch // for a lazy grammar: what wakes it
	// narrow is set on a grammar sampler whose last exact sample masked
	// every candidate and left fewer than the top-k cut keeps: the next
	// one masks at once (see GrammarExact).
	narrow bool
	cands  *C.llama_token_data
	nCands int
}

// stageKind tells the samplers apart for exact grammar sampling, which
// needs to know what each stage of a chain does (see grammarPlan).
type stageKind int

const (
	kindOther stageKind = iota
	kindChain
	kindGreedy
	kindDist
	kindTopK
	kindTopP
	kindMinP
	kindTypical
	kindTemp
	kindTempExt
	kindXTC
	kindTopNSigma
	kindMirostat
	kindPenalties
	kindDRY
	kindLogitBias
	kindGrammar
	kindInfill
)

// stageParams are the settings of a stage that grammarPlan reads.
type stageParams struct {
	k       int
	p       float32 // top-p, min-p, typical p, XTC probability, top-n-sigma n
	t       float32 // temperature, XTC threshold
	delta   float32 // dynamic temperature range
	minKeep int
}

func newSampler(name string, kind stageKind, p stageParams, s *C.struct_llama_sampler) *Sampler {
	return &Sampler{s: s, name: name, kind: kind, param: p}
}

// clampInt32 turns a count into llama.cpp's int32 where a larger count
// means the same as the largest one ("keep all", "the whole context").
func clampInt32(n int) C.int32_t {
	return C.int32_t(max(min(n, math.MaxInt32), math.MinInt32))
}

// NewChain returns an empty sampler chain. With noPerf the chain does not
// time itself.
func NewChain(noPerf bool) *Sampler {
	p := C.llama_sampler_chain_default_params()
	p.no_perf = C.bool(noPerf)
	return newSampler("chain", kindChain, stageParams{}, C.llama_sampler_chain_init(p))
}

// NewGreedy selects the most likely token.
func NewGreedy() *Sampler {
	return newSampler("greedy", kindGreedy, stageParams{}, C.llama_sampler_init_greedy())
}

// NewDist samples from the distribution with the given seed.
func NewDist(seed uint32) *Sampler {
	return newSampler("dist", kindDist, stageParams{}, C.llama_sampler_init_dist(C.uint32_t(seed)))
}

// NewTopK keeps the k most likely tokens; k <= 0 keeps all.
func NewTopK(k int) *Sampler {
	return newSampler("top-k", kindTopK, stageParams{k: k}, C.llama_sampler_init_top_k(clampInt32(k)))
}

// NewTopP keeps the smallest set of tokens whose probabilities sum to p.
func NewTopP(p float32, minKeep int) *Sampler {
	return newSampler("top-p", kindTopP, stageParams{p: p, minKeep: minKeep},
		C.llama_sampler_init_top_p(C.float(p), C.size_t(max(minKeep, 0))))
}

// NewMinP keeps tokens whose probability is at least p times the top one's.
func NewMinP(p float32, minKeep int) *Sampler {
	return newSampler("min-p", kindMinP, stageParams{p: p, minKeep: minKeep},
		C.llama_sampler_init_min_p(C.float(p), C.size_t(max(minKeep, 0))))
}

// NewTypical is locally typical sampling with mass p.
func NewTypical(p float32, minKeep int) *Sampler {
	return newSampler("typical", kindTypical, stageParams{p: p, minKeep: minKeep},
		C.llama_sampler_init_typical(C.float(p), C.size_t(max(minKeep, 0))))
}

// NewTemp divides the logits by t; t <= 0 keeps only the top token.
func NewTemp(t float32) *Sampler {
	return newSampler("temp", kindTemp, stageParams{t: t}, C.llama_sampler_init_temp(C.float(t)))
}

// NewTempExt is dynamic temperature: t ± delta scaled by entropy^exponent.
func NewTempExt(t, delta, exponent float32) *Sampler {
	return newSampler("temp-ext", kindTempExt, stageParams{t: t, delta: delta},
		C.llama_sampler_init_temp_ext(C.float(t), C.float(delta), C.float(exponent)))
}

// NewXTC removes the top tokens above threshold t with probability p.
func NewXTC(p, t float32, minKeep int, seed uint32) *Sampler {
	return newSampler("xtc", kindXTC, stageParams{p: p, t: t, minKeep: minKeep},
		C.llama_sampler_init_xtc(C.float(p), C.float(t), C.size_t(max(minKeep, 0)), C.uint32_t(seed)))
}

// NewTopNSigma keeps tokens within n standard deviations of the top logit.
func NewTopNSigma(n float32) *Sampler {
	return newSampler("top-n-sigma", kindTopNSigma, stageParams{p: n}, C.llama_sampler_init_top_n_sigma(C.float(n)))
}

// NewMirostat is Mirostat 1.0 over a vocabulary of nVocab tokens.
func NewMirostat(nVocab int, seed uint32, tau, eta float32, m int) *Sampler {
	return newSampler("mirostat", kindMirostat, stageParams{},
		C.llama_sampler_init_mirostat(clampInt32(nVocab), C.uint32_t(seed), C.float(tau), C.float(eta), clampInt32(m)))
}

// NewMirostatV2 is Mirostat 2.0.
func NewMirostatV2(seed uint32, tau, eta float32) *Sampler {
	return newSampler("mirostat-v2", kindMirostat, stageParams{}, C.llama_sampler_init_mirostat_v2(C.uint32_t(seed), C.float(tau), C.float(eta)))
}

// NewPenalties applies the repeat, frequency and presence penalties over the
// last lastN accepted tokens (0: off). llama.cpp divides positive logits by
// repeat and multiplies negative ones. llama.cpp's sampler turns a negative
// lastN into 0, so -1, "the whole context" on llama.cpp's command line,
// must be resolved to the context size first, as llama.cpp's common code
// does (see engine.Chain).
func NewPenalties(lastN int, repeat, freq, present float32) *Sampler {
	return newSampler("penalties", kindPenalties, stageParams{},
		C.llama_sampler_init_penalties(clampInt32(lastN), C.float(repeat), C.float(freq), C.float(present)))
}

// NewDRY returns the DRY repetition sampler. The sequence breakers are
// processed once per model and settings (a scan of the vocabulary); later
// samplers with the same settings are clones of that first one.
func (m *Model) NewDRY(multiplier, base float32, allowedLength, lastN int, breakers []string) (*Sampler, error) {
	var s *Sampler
	err := m.useVocab("dry sampler", func() error {
		key := fmt.Sprintf("%g %g %d %d %q", multiplier, base, allowedLength, lastN, breakers)
		m.dryMu.Lock()
		defer m.dryMu.Unlock()
		proto := m.dry[key]
		if proto == nil {
			proto = m.initDRY(multiplier, base, allowedLength, lastN, breakers)
			if proto == nil {
				return errors.New("llama.cpp could not make the DRY sampler")
			}
			if m.dry == nil {
				m.dry = map[string]*C.struct_llama_sampler{}
			}
			m.dry[key] = proto
		}
		c := C.llama_sampler_clone(proto)
		if c == nil {
			return errors.New("llama.cpp could not clone the DRY sampler")
		}
		s = newSampler("dry", kindDRY, stageParams{}, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, m.adoptSampler(s)
}

// initDRY makes a DRY sampler, processing its breakers over the
// vocabulary.
func (m *Model) initDRY(multiplier, base float32, allowedLength, lastN int, breakers []string) *C.struct_llama_sampler {
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
	return C.llama_sampler_init_dry(m.vocab, C.llama_model_n_ctx_train(m.m), C.float(multiplier),
		C.float(base), clampInt32(allowedLength), clampInt32(lastN), pb, C.size_t(len(cb)))
}

// NewInfill returns llama.cpp's fill-in-the-middle sampler. Its work grows
// with the square of its candidates, far too much for a full vocabulary,
// so a chain takes it only after a top-k of at most MaxInfillCandidates.
func (m *Model) NewInfill() (*Sampler, error) {
	var s *Sampler
	err := m.useVocab("infill sampler", func() error {
		s = newSampler("infill", kindInfill, stageParams{}, C.llama_sampler_init_infill(m.vocab))
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
		s = newSampler("logit-bias", kindLogitBias, stageParams{}, C.llama_sampler_init_logit_bias(C.int32_t(m.nVocab), C.int32_t(len(lb)), p))
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

// Close frees a sampler that is not part of a chain, or a chain with all of
// its samplers. Calling it again does nothing.
func (s *Sampler) Close() error {
	s.close()
	if s.model != nil {
		s.model.release(s)
	}
	return nil
}

// close frees the C side of a sampler that no chain owns, and of a chain
// its members with it; the model calls it when it closes first.
func (s *Sampler) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil || s.owner != nil {
		return
	}
	C.llama_sampler_free(s.s)
	s.s = nil
	s.freeCandidates()
	for _, c := range s.children {
		c.mu.Lock()
		c.s = nil
		c.freeCandidates()
		c.mu.Unlock()
	}
}

func (s *Sampler) freeCandidates() {
	if s.cands != nil {
		C.free(unsafe.Pointer(s.cands))
		s.cands, s.nCands = nil, 0
	}
}

// ensureCandidates makes sure the candidate buffer holds n tokens.
func (s *Sampler) ensureCandidates(n int) {
	if s.nCands < n {
		s.freeCandidates()
		s.cands = (*C.llama_token_data)(C.malloc(C.size_t(n) * C.sizeof_llama_token_data))
		s.nCands = n
	}
}

// Reset clears the sampler's state (penalty history, grammar position, a
// lazy grammar's wait for its trigger).
func (s *Sampler) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s != nil {
		C.llama_sampler_reset(s.s)
	}
	if s.lazy != nil {
		s.lazy.reset()
	}
	s.narrow = false
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
