package llama

import (
	"context"
	"time"
)

// Slot owns one sequence of a Context and remembers the tokens in it, so
// that a new prompt reuses the longest cached prefix, as llama-server's
// slots do. A Slot is not safe for concurrent use.
type Slot struct {
	ctx    *Context
	seq    int
	tokens []Token
	swa    int // sliding-window size of the model, 0 when none
}

// PrefillStats reports how a prompt was processed, with the field names of
// llama-server's timings.
type PrefillStats struct {
	CacheN   int     // prompt tokens taken from the KV cache (cache_n)
	PromptN  int     // prompt tokens computed now (prompt_n)
	PromptMs float64 // time to compute them (prompt_ms)
	// Reprocessed is set when the cache could not keep a prefix (recurrent
	// or sliding-window memory) and the whole prompt was computed again.
	Reprocessed bool
}

// PerSecond returns prompt tokens per second (prompt_per_second).
func (s PrefillStats) PerSecond() float64 {
	if s.PromptMs <= 0 {
		return 0
	}
	return float64(s.PromptN) / s.PromptMs * 1000
}

// NewSlot returns a slot over sequence seq of c. It starts empty: the
// sequence is cleared.
func NewSlot(c *Context, seq int) (*Slot, error) {
	if err := c.checkSeq(seq); err != nil {
		return nil, newError("new slot", "", err)
	}
	if _, err := c.SeqRemove(seq, -1, -1); err != nil {
		return nil, err
	}
	info, err := c.model.Info()
	if err != nil {
		return nil, err
	}
	return &Slot{ctx: c, seq: seq, swa: info.SWA}, nil
}

// Seq returns the slot's sequence id.
func (s *Slot) Seq() int { return s.seq }

// Context returns the slot's context.
func (s *Slot) Context() *Context { return s.ctx }

// Tokens returns the tokens in the slot's KV cache. The slice is the slot's
// own; do not modify it.
func (s *Slot) Tokens() []Token { return s.tokens }

// Len returns the number of tokens in the slot.
func (s *Slot) Len() int { return len(s.tokens) }

// CommonPrefix returns how many leading tokens of prompt the slot holds.
func (s *Slot) CommonPrefix(prompt []Token) int {
	n := min(len(s.tokens), len(prompt))
	for i := range n {
		if s.tokens[i] != prompt[i] {
			return i
		}
	}
	return n
}

// Prefill makes the slot hold prompt with logits for its last token. It
// keeps the longest common prefix with what the slot holds, removes the rest
// with seq_rm, and computes only the new tokens, always at least the last
// one. A prompt longer than the sequence's context is refused with
// ErrContextFull before anything is computed.
func (s *Slot) Prefill(ctx context.Context, prompt []Token) (PrefillStats, error) {
	return s.PrefillProgress(ctx, prompt, nil)
}

// PrefillProgress is Prefill that calls progress, when it is not nil,
// after each batch with the prompt tokens computed so far and the tokens
// to compute: a long prompt can show its progress.
func (s *Slot) PrefillProgress(ctx context.Context, prompt []Token, progress func(done, total int)) (PrefillStats, error) {
	const op = "prefill"
	var st PrefillStats
	if len(prompt) == 0 {
		return st, newError(op, "", detail(ErrInvalidArgument, "empty prompt"))
	}
	if limit := s.ctx.SeqSize(); len(prompt) > limit {
		return st, newError(op, "", detail(ErrContextFull, "prompt of %d tokens exceeds the context of %d tokens", len(prompt), limit))
	}
	if err := s.ctx.model.checkTokens(prompt); err != nil {
		return st, newError(op, "", err)
	}
	if s.ctx.SeqPosMax(s.seq) != len(s.tokens)-1 {
		// The cache and the tokens disagree (a state restored elsewhere,
		// a failed operation): trust neither.
		if err := s.Clear(); err != nil {
			return st, err
		}
	}
	n := s.CommonPrefix(prompt)
	if n == len(prompt) {
		n-- // the last token is evaluated again for its logits
	}
	if n > 0 && s.swa > 0 {
		// A sliding-window cache may have dropped what the prefix needs.
		if pmin := s.ctx.SeqPosMin(s.seq); pmin > 0 && pmin > n-s.swa {
			n, st.Reprocessed = 0, true
		}
	}
	ok, err := s.ctx.SeqRemove(s.seq, n, -1)
	if err != nil {
		return st, err
	}
	if !ok {
		if _, err := s.ctx.SeqRemove(s.seq, -1, -1); err != nil {
			return st, err
		}
		n, st.Reprocessed = 0, true
	}
	s.tokens = s.tokens[:n]
	st.CacheN = n
	start := time.Now()
	done, err := s.decodeNew(ctx, n, prompt[n:], progress)
	st.PromptMs = float64(time.Since(start).Microseconds()) / 1000
	st.PromptN = done
	s.tokens = append(s.tokens, prompt[n:n+done]...)
	return st, err
}

// decodeNew decodes toks from position pos, a batch at a time when
// progress wants to hear of each, with logits for the last token.
func (s *Slot) decodeNew(ctx context.Context, pos int, toks []Token, progress func(done, total int)) (int, error) {
	if progress == nil {
		return s.ctx.DecodeTokens(ctx, s.seq, pos, toks, true)
	}
	done := 0
	for done < len(toks) {
		n := min(s.ctx.BatchSize(), len(toks)-done)
		got, err := s.ctx.DecodeTokens(ctx, s.seq, pos+done, toks[done:done+n], done+n == len(toks))
		done += got
		if err != nil {
			return done, err
		}
		progress(done, len(toks))
	}
	return done, nil
}

// Append evaluates one more token (a sampled one) at the end of the slot and
// leaves its logits for the next sample.
func (s *Slot) Append(ctx context.Context, t Token) error {
	if len(s.tokens) >= s.ctx.SeqSize() {
		return newError("append", "", detail(ErrContextFull, "the slot holds %d tokens, its context is full", len(s.tokens)))
	}
	done, err := s.ctx.DecodeTokens(ctx, s.seq, len(s.tokens), []Token{t}, true)
	if done == 1 {
		s.tokens = append(s.tokens, t)
	}
	return err
}

// Clear empties the slot and its sequence.
func (s *Slot) Clear() error {
	s.tokens = s.tokens[:0]
	_, err := s.ctx.SeqRemove(s.seq, -1, -1)
	return err
}

// AppendOutputs evaluates toks at the end of the slot in one batch, with
// logits for each: sample output i (Sampler.Sample's idx) for the token
// that follows toks[i]. It verifies a speculative draft: the slot then
// holds all of toks, and Truncate drops the ones not accepted. toks must
// fit in the context and in one batch (BatchSize).
func (s *Slot) AppendOutputs(ctx context.Context, toks []Token) error {
	const op = "append outputs"
	if len(s.tokens)+len(toks) > s.ctx.SeqSize() {
		return newError(op, "", detail(ErrContextFull, "the slot holds %d tokens, %d more exceed its context of %d", len(s.tokens), len(toks), s.ctx.SeqSize()))
	}
	done, err := s.ctx.decodeOutputs(ctx, s.seq, len(s.tokens), toks)
	s.tokens = append(s.tokens, toks[:done]...)
	return err
}

// Truncate keeps the first n tokens of the slot and removes the rest of
// its sequence's KV cells, so that the tokens and the cache agree. It
// fails when the memory cannot remove a suffix (recurrent models).
func (s *Slot) Truncate(n int) error {
	if n >= len(s.tokens) {
		return nil
	}
	ok, err := s.ctx.SeqRemove(s.seq, max(n, 0), -1)
	if err != nil {
		return err
	}
	if !ok {
		return newError("truncate", "", detail(ErrInvalidArgument, "the memory cannot remove positions %d and on", n))
	}
	s.tokens = s.tokens[:max(n, 0)]
	return nil
}
