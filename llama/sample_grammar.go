package llama

/*
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"unsafe"
)

// GrammarMode says how SampleGrammar applies a grammar.
type GrammarMode int

const (
	// GrammarExact, the default, samples with the distribution of
	// GrammarFirst, the grammar's mask followed by the chain, at a fraction
	// of its cost: the stages that change each logit on its own (logit
	// bias, penalties, DRY, a temperature) run first, then candidates are
	// checked one by one in descending logit until the truncation that
	// follows is settled (the first top_k allowed ones; for min-p every
	// allowed one above min_p times the best allowed one; for greedy the
	// best). Only when the chain needs statistics of the whole allowed set
	// (top-p with no top-k before it, typical, top-n-sigma, XTC, dynamic
	// temperature, Mirostat, or no truncation at all), or more than
	// ExactMaxChecks candidates had to be checked, is every candidate
	// masked. A grammar whose last mask of every candidate left fewer than
	// top_k allowed (a string narrowed to a file's text, such as an edit's
	// old_string, token after token) is masked at once the next time: its
	// checks could not find top_k allowed candidates, and the mask would
	// follow them anyway. Each such mask says again whether the state is
	// still that narrow; engine's BenchmarkGrammarNarrow measures the
	// saving. Every way samples the same distribution.
	GrammarExact GrammarMode = iota
	// GrammarFirst applies the grammar to every candidate before the chain,
	// as llama.cpp's common sampler does at the pinned commit.
	GrammarFirst
	// RejectionFirst samples from the chain alone, checks that one token
	// against the grammar, and masks every candidate only when it rejects
	// the token. It is fast but not exact: it favours the tokens that
	// survive the chain's truncation of the unconstrained candidates.
	RejectionFirst
)

// ExactMaxChecks is how many candidates GrammarExact checks one by one
// before it masks them all instead. A check costs far more than masking
// does per candidate, because llama.cpp's grammar walks its parse stacks
// once per call, whether the call brings one candidate or the whole
// vocabulary. A bound well under 1% of a large vocabulary keeps the worst
// case, a grammar that allows almost none of the likely tokens, close to
// the cost of one full mask; engine's BenchmarkGrammarSample measures it.
const ExactMaxChecks = 1024

// GrammarStep reports how SampleGrammar used the grammar for one token.
type GrammarStep struct {
	// Rejected is set when RejectionFirst's first choice was refused.
	Rejected bool
	// Checked counts the candidates GrammarExact checked one by one.
	Checked int
	// Awaiting is set while a lazy grammar waits for its trigger and
	// constrains nothing.
	Awaiting bool
}

// Waiting reports whether s is a lazy grammar that has not seen its
// trigger yet, and so constrains nothing.
func (s *Sampler) Waiting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lazy != nil && !s.lazy.awake
}

// Forced returns the text that every way through the grammar s writes
// next, from its state now, up to max bytes: what a call format's
// punctuation or a one-way choice leaves the model no choice about. It is
// empty where the next character is a choice or the grammar may end, for
// a lazy grammar still waiting for its trigger, inside a multi-byte
// character, and for a sampler that is not a grammar. A drafter proposes
// its tokens (engine's Request.DraftInCalls).
func (s *Sampler) Forced(max int) (string, error) {
	const op = "forced text"
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return "", newError(op, s.name, ErrClosed)
	}
	if !s.grammar || max <= 0 || (s.lazy != nil && !s.lazy.awake) {
		return "", nil
	}
	buf := make([]byte, max) // holds no Go pointer: C may write it during the call
	var errbuf [256]C.char
	n := C.loop_grammar_forced(s.s, (*C.char)(unsafe.Pointer(&buf[0])), C.int32_t(max), &errbuf[0], C.size_t(len(errbuf)))
	if n < 0 {
		return "", newError(op, s.name, errors.New(C.GoString(&errbuf[0])))
	}
	return string(buf[:n]), nil
}

// SampleGrammar samples from output idx of c's last decode with the chain s
// under grammar g, a grammar sampler that is not part of s, and accepts the
// token in both. An error wrapping ErrGrammar means the grammar allows no
// token here.
func (s *Sampler) SampleGrammar(c *Context, idx int, g *Sampler, mode GrammarMode) (Token, GrammarStep, error) {
	const op = "sample with grammar"
	var step GrammarStep
	if s == g {
		return NoToken, step, newError(op, g.name, detail(ErrInvalidArgument, "g must not be the chain"))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g.mu.Lock()
	defer g.mu.Unlock()
	if s.s == nil || g.s == nil {
		return NoToken, step, newError(op, s.name, ErrClosed)
	}
	if !g.grammar || g.owner != nil {
		return NoToken, step, newError(op, g.name, detail(ErrInvalidArgument, "g must be a grammar sampler outside any chain"))
	}
	if err := s.checkModel(c); err != nil {
		return NoToken, step, newError(op, s.name, err)
	}
	if err := g.checkModel(c); err != nil {
		return NoToken, step, newError(op, g.name, err)
	}
	if err := c.lock(op); err != nil {
		return NoToken, step, err
	}
	defer c.mu.Unlock()
	if err := c.checkOutput(idx); err != nil {
		return NoToken, step, newError(op, s.name, err)
	}
	if g.lazy != nil && !g.lazy.awake {
		// Nothing to constrain yet: sample from the chain alone, and let
		// the watch see the token.
		step.Awaiting = true
		tok, err := s.sampleLocked(c, idx, op)
		if err != nil {
			return NoToken, step, err
		}
		if err := g.acceptLocked(tok); err != nil {
			return NoToken, step, newError(op, g.name, err)
		}
		return tok, step, nil
	}
	s.ensureCandidates(c.model.nVocab)
	var errbuf [256]C.char
	var rej C.bool
	var checked, allowed C.int32_t
	plan := s.grammarPlan()
	if g.narrow {
		plan.max_checks = 0
	}
	t := C.loop_sample_grammar(s.s, g.s, c.c, C.int32_t(idx), s.cands, C.int32_t(c.model.nVocab),
		C.int32_t(mode), plan, &rej, &checked, &allowed, &errbuf[0], C.size_t(len(errbuf)))
	step.Rejected, step.Checked = bool(rej), int(checked)
	g.narrow = plan.cut == C.LOOP_CUT_TOP_K && allowed >= 0 && allowed < plan.k
	if t == C.LLAMA_TOKEN_NULL {
		return NoToken, step, sampleError(op, s.name, C.GoString(&errbuf[0]))
	}
	return Token(t), step, nil
}

// grammarPlan tells the bridge how GrammarExact may run the chain s: how
// many leading stages commute with the grammar's mask, and what the stage
// after them needs (see GrammarExact).
func (s *Sampler) grammarPlan() C.struct_loop_grammar_plan {
	stages := s.children
	if s.kind != kindChain {
		stages = []*Sampler{s}
	}
	plan := C.struct_loop_grammar_plan{cut: C.LOOP_CUT_NONE, max_checks: ExactMaxChecks}
	for i, st := range stages {
		plan.n_pre = C.int32_t(i)
		p := st.param
		switch {
		case st.perToken() || st.noop():
			continue
		case st.kind == kindTopK:
			plan.cut, plan.k = C.LOOP_CUT_TOP_K, C.int32_t(min(p.k, ExactMaxChecks))
			if p.k > ExactMaxChecks {
				plan.cut = C.LOOP_CUT_NONE
			}
		case st.kind == kindMinP:
			plan.cut, plan.p, plan.min_keep = C.LOOP_CUT_MIN_P, C.float(p.p), C.int32_t(min(max(p.minKeep, 1), ExactMaxChecks))
		case st.kind == kindGreedy, (st.kind == kindTemp || st.kind == kindTempExt) && p.t <= 0 && p.delta <= 0:
			plan.cut = C.LOOP_CUT_GREEDY
		}
		return plan
	}
	plan.n_pre = C.int32_t(len(stages))
	return plan
}

// perToken reports a stage that changes each candidate's logit on its own,
// which therefore gives the same result before or after the grammar's mask.
func (s *Sampler) perToken() bool {
	switch s.kind {
	case kindLogitBias, kindPenalties, kindDRY:
		return true
	case kindTemp, kindTempExt:
		return s.param.t > 0 && s.param.delta <= 0
	}
	return false
}

// noop reports a stage whose settings make it do nothing, as llama.cpp's
// apply functions return early on them.
func (s *Sampler) noop() bool {
	p := s.param
	switch s.kind {
	case kindTopK:
		return p.k <= 0
	case kindTopP, kindTypical:
		return p.p >= 1
	case kindMinP, kindTopNSigma:
		return p.p <= 0
	case kindXTC:
		return p.p <= 0 || p.t > 0.5
	}
	return false
}
