package engine

import (
	"context"
	"errors"
	"time"

	"github.com/loopagent/loop/llama"
)

// Stop types, as llama-server reports them.
const (
	StopEOS   = "eos"   // an end-of-generation token, or a grammar that completed
	StopLimit = "limit" // NPredict tokens, or a full context
	StopWord  = "word"  // one of Request.Stop appeared
)

// Request is one generation.
type Request struct {
	// Prompt is prefilled into the slot first, reusing its cached prefix.
	// Empty continues from the slot's current logits.
	Prompt []llama.Token
	// Chain samples the tokens; it must end with a selecting sampler.
	Chain *llama.Sampler
	// CallChain, when set, samples instead of Chain once Grammar is awake:
	// from the start for a grammar that is not lazy, from its trigger on
	// for a lazy one. A tool call is then written with one preset and an
	// answer with another.
	CallChain *llama.Sampler
	// Grammar, when set, constrains the output; it is a grammar sampler
	// outside Chain (see CompileGrammar).
	Grammar *llama.Sampler
	// GrammarMode is how the grammar is applied: exact (the default),
	// grammar-first, or rejection-first (fast, not exact).
	GrammarMode llama.GrammarMode
	// NPredict is the most tokens to generate: 0 until the context is
	// full, negative none (the prompt is only read).
	NPredict int
	// Stop ends generation when the text contains one of these strings; the
	// text is cut before it.
	Stop []string
	// OnPrefill, when set, hears how far the prefill of Prompt is: the
	// tokens computed and the tokens to compute, after each batch.
	OnPrefill func(done, total int)
	// OnText, when set, receives the text as it is generated, in complete
	// UTF-8 pieces, holding back what could be the start of a stop string.
	OnText func(string)
	// RenderSpecial writes control tokens into the text.
	RenderSpecial bool
	// DraftMax, when positive, decodes speculatively: up to DraftMax
	// tokens are drafted ahead and verified in one decode (see draft.go).
	// The output is the one plain decoding gives. 0 decodes token by
	// token, as do recurrent and hybrid models, whose state cannot drop
	// a rejected draft.
	DraftMax int
	// DraftInCalls limits drafting to tool calls: the tokens sampled
	// while Grammar is awake (a lazy grammar's from its trigger on, any
	// other's from the start), and from AnswerSources outside them.
	// Without a Grammar or AnswerSources nothing is drafted. A
	// call's arguments copy most (a path, the lines an edit replaces), and
	// prose around them little, where a draft on a CPU costs more than it
	// saves.
	DraftInCalls bool
	// Pace, when set, carries what drafting learnt about when it pays
	// from one request to the next, and the replies drafted with it,
	// which later replies draft from (see Pace); nil starts afresh.
	Pace *Pace
	// Draft, when set with DraftMax, proposes the drafts instead of prompt
	// lookup: up to max tokens to follow tokens, the slot's tokens and the
	// ones generated so far (the last one not yet decoded), which Draft
	// must not modify. Generate copies the draft; it is verified at every
	// step, without prompt lookup's check that drafting pays.
	Draft func(tokens []llama.Token, max int) []llama.Token
	// Sources, with DraftMax, are texts the reply may copy, tokenized as
	// the reply would write them (see sources.go): where the history's
	// end matches one, the draft comes from it, up to maxSourceDraft
	// tokens, before prompt lookup is tried.
	Sources [][]llama.Token
	// AnswerSources, with DraftMax, are texts an answer may copy (the
	// text outside a call: a test's failure, a value a tool printed),
	// tokenized as plain text. Outside a call the draft comes from them
	// first, with a pace of its own; with DraftInCalls they are the only
	// drafts there.
	AnswerSources [][]llama.Token
}

// Result describes a finished generation.
type Result struct {
	Text         string
	Tokens       []llama.Token // generated tokens, the end-of-generation token included
	StopType     string        // StopEOS, StopLimit or StopWord
	StoppingWord string
	Prefill      llama.PrefillStats
	PredictMs    float64 // time spent generating
	// Rejections counts the tokens the grammar rejected first
	// (llama.RejectionFirst).
	Rejections int
	// GrammarChecks counts the candidates checked one by one against the
	// grammar (llama.GrammarExact).
	GrammarChecks int
	// Decodes counts the decodes of generation, one per token without
	// drafting; Drafted the draft tokens they verified and Accepted those
	// kept (Request.DraftMax).
	Decodes, Drafted, Accepted int
}

// PerSecond is the generation speed in tokens per second.
func (r *Result) PerSecond() float64 {
	if r.PredictMs <= 0 {
		return 0
	}
	return float64(len(r.Tokens)) / r.PredictMs * 1000
}

// Generate prefills req.Prompt into slot and samples until an
// end-of-generation token, a stop string, NPredict tokens or a full
// context. A grammar that allows no token is an error wrapping
// llama.ErrGrammar; cancelling ctx returns its error. On every path, error
// or not, the result holds what was generated so far (Text and Tokens), so
// a cancelled or failed generation loses nothing it already showed.
func Generate(ctx context.Context, slot *llama.Slot, req Request) (*Result, error) {
	if req.Chain == nil {
		return nil, errors.New("engine: Request.Chain is nil")
	}
	res := &Result{StopType: StopLimit}
	out := newTextOut(req.Stop, req.OnText)
	start := time.Now()
	defer func() {
		res.Text = out.finish()
		res.PredictMs = float64(time.Since(start).Microseconds()) / 1000
	}()
	if len(req.Prompt) > 0 {
		st, err := slot.PrefillProgress(ctx, req.Prompt, req.OnPrefill)
		res.Prefill = st
		start = time.Now()
		if err != nil {
			return res, err
		}
	}
	return res, generate(ctx, slot, req, res, out)
}

// generate samples tokens into res and out until a stop.
func generate(ctx context.Context, slot *llama.Slot, req Request, res *Result, out *textOut) error {
	if req.NPredict < 0 {
		return nil
	}
	if req.DraftMax > 0 && (!req.DraftInCalls || req.Grammar != nil || len(req.AnswerSources) > 0) && canDraft(slot) {
		return generateDraft(ctx, slot, req, res, out)
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		tok, err := sampleAt(slot.Context(), req, res, -1)
		if err != nil {
			return err
		}
		if stop, err := emit(slot.Context().Model(), req, res, out, tok); stop || err != nil {
			return err
		}
		if err := slot.Append(ctx, tok); err != nil {
			if errors.Is(err, llama.ErrContextFull) {
				return nil
			}
			return err
		}
		res.Decodes++
	}
}

// sampleAt samples the token after output idx of the last decode and
// counts the grammar's work in res.
func sampleAt(c *llama.Context, req Request, res *Result, idx int) (llama.Token, error) {
	tok, step, err := sample(c, req, idx)
	if err != nil {
		return tok, err
	}
	if step.Rejected {
		res.Rejections++
	}
	res.GrammarChecks += step.Checked
	return tok, nil
}

// emit adds a sampled token to res and out, and reports whether
// generation stops with it: an end-of-generation token, a stop string, or
// NPredict tokens.
func emit(m *llama.Model, req Request, res *Result, out *textOut, tok llama.Token) (bool, error) {
	res.Tokens = append(res.Tokens, tok)
	if m.IsEOG(tok) {
		res.StopType = StopEOS
		return true, nil
	}
	piece, err := m.TokenPiece(tok, req.RenderSpecial)
	if err != nil {
		return true, err
	}
	if w := out.add(piece); w != "" {
		res.StopType, res.StoppingWord = StopWord, w
		return true, nil
	}
	return req.NPredict > 0 && len(res.Tokens) == req.NPredict, nil
}

func sample(c *llama.Context, req Request, idx int) (llama.Token, llama.GrammarStep, error) {
	if req.Grammar == nil {
		t, err := req.Chain.Sample(c, idx)
		return t, llama.GrammarStep{}, err
	}
	ch := req.Chain
	if req.CallChain != nil && !req.Grammar.Waiting() {
		ch = req.CallChain
	}
	return ch.SampleGrammar(c, idx, req.Grammar, req.GrammarMode)
}
