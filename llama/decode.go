package llama

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"unsafe"
)

// Batch is a list of tokens to decode, each with its position, sequences and
// whether its logits are wanted. It is not safe for concurrent use.
type Batch struct {
	b        C.struct_llama_batch
	capacity int
	maxSeqs  int
	n        int
}

// NewBatch allocates a batch for up to capacity tokens, each in up to
// maxSeqs sequences (at most maxSequences). Close frees it. Sizes beyond
// int32, or memory that cannot be had, are errors.
func NewBatch(capacity, maxSeqs int) (*Batch, error) {
	const op = "new batch"
	if capacity < 1 || capacity > math.MaxInt32 {
		return nil, newError(op, "", detail(ErrInvalidArgument, "capacity %d is outside 1..%d", capacity, math.MaxInt32))
	}
	if maxSeqs < 1 || maxSeqs > maxSequences {
		return nil, newError(op, "", detail(ErrInvalidArgument, "%d sequences per token is outside 1..%d", maxSeqs, maxSequences))
	}
	b := &Batch{capacity: capacity, maxSeqs: maxSeqs}
	if !C.loop_batch_init(&b.b, C.int32_t(capacity), C.int32_t(maxSeqs)) {
		return nil, newError(op, "", fmt.Errorf("out of memory for %d tokens", capacity))
	}
	return b, nil
}

// Add appends a token at position pos in the given sequences. Positions
// and sequence ids must fit llama.cpp's int32.
func (b *Batch) Add(t Token, pos int, seqs []int, logits bool) error {
	const op = "batch add"
	if b.b.token == nil {
		return newError(op, "", ErrClosed)
	}
	if b.n >= b.capacity {
		return newError(op, "", detail(ErrInvalidArgument, "batch is full at %d tokens", b.capacity))
	}
	if len(seqs) == 0 || len(seqs) > b.maxSeqs {
		return newError(op, "", detail(ErrInvalidArgument, "%d sequences per token, want 1..%d", len(seqs), b.maxSeqs))
	}
	if pos < 0 || pos > math.MaxInt32 {
		return newError(op, "", detail(ErrInvalidArgument, "position %d is outside 0..%d", pos, math.MaxInt32))
	}
	var ids [8]C.llama_seq_id
	cs := ids[:0]
	for _, s := range seqs {
		if s < 0 || s >= maxSequences {
			return newError(op, "", detail(ErrInvalidArgument, "sequence %d is outside 0..%d", s, maxSequences-1))
		}
		cs = append(cs, C.llama_seq_id(s))
	}
	C.loop_batch_set(&b.b, C.int32_t(b.n), C.llama_token(t), C.llama_pos(pos), &cs[0], C.int32_t(len(cs)), C.bool(logits))
	b.n++
	return nil
}

// Clear empties the batch for reuse.
func (b *Batch) Clear() { b.n = 0 }

// Close frees the batch. Calling it again does nothing.
func (b *Batch) Close() error {
	if b.b.token != nil {
		C.loop_batch_free(&b.b)
	}
	return nil
}

// token returns the entries of token i (for validation).
func (b *Batch) entry(i int) (Token, []C.llama_seq_id) {
	tok := Token(*(*C.llama_token)(unsafe.Add(unsafe.Pointer(b.b.token), i*C.sizeof_llama_token)))
	n := int(*(*C.int32_t)(unsafe.Add(unsafe.Pointer(b.b.n_seq_id), i*4)))
	row := *(**C.llama_seq_id)(unsafe.Add(unsafe.Pointer(b.b.seq_id), i*int(unsafe.Sizeof(uintptr(0)))))
	return tok, unsafe.Slice(row, n)
}

// Decode evaluates a batch of at most BatchSize tokens. Cancelling ctx aborts
// the computation through llama.cpp's abort callback and returns an error
// that wraps ctx.Err(); the ubatches finished before the abort stay in the KV
// cache (see SeqPosMax). A full KV cache returns ErrContextFull.
func (c *Context) Decode(ctx context.Context, b *Batch) error {
	const op = "decode"
	if err := c.lock(op); err != nil {
		return err
	}
	defer c.mu.Unlock()
	if b.b.token == nil {
		return newError(op, "", detail(ErrClosed, "batch"))
	}
	if err := c.checkBatch(b); err != nil {
		return newError(op, "", err)
	}
	return c.decode(ctx, b)
}

func (c *Context) checkBatch(b *Batch) error {
	if b.n == 0 {
		return detail(ErrInvalidArgument, "empty batch")
	}
	if b.n > c.nBatch {
		return detail(ErrInvalidArgument, "batch of %d tokens exceeds n_batch %d", b.n, c.nBatch)
	}
	for i := range b.n {
		tok, seqs := b.entry(i)
		if tok < 0 || int(tok) >= c.model.nVocab {
			return detail(ErrInvalidArgument, "token %d at index %d is outside the vocabulary of %d", tok, i, c.model.nVocab)
		}
		for _, s := range seqs {
			if err := c.checkSeq(int(s)); err != nil {
				return err
			}
		}
	}
	return nil
}

// decode runs llama_decode with ctx wired to the abort flag; c.mu is held.
func (c *Context) decode(ctx context.Context, b *Batch) error {
	const op = "decode"
	if err := ctx.Err(); err != nil {
		return newError(op, "", err)
	}
	gen, ok := c.armAbort()
	if !ok {
		return newError(op, "", errors.New("aborted because the context is closing"))
	}
	stop := context.AfterFunc(ctx, func() { c.abortDecode(gen) })
	defer stop()
	cb := b.b
	cb.n_tokens = C.int32_t(b.n)
	var errbuf [256]C.char
	c.outputs = c.outputs[:0]
	// An abort makes llama.cpp log three errors (graph_compute,
	// process_ubatch, llama_decode); a deliberate one is not an error.
	logs := holdLogs()
	rc := C.loop_decode(c.c, cb, &errbuf[0], C.size_t(len(errbuf)))
	logs.release(rc == 2)
	switch {
	case rc == 0:
		flags := unsafe.Slice((*int8)(unsafe.Pointer(b.b.logits)), b.n)
		for i, f := range flags {
			if f != 0 {
				c.outputs = append(c.outputs, i)
			}
		}
		return nil
	case rc == 1:
		return newError(op, "", detail(ErrContextFull, "no KV cache slot for %d tokens", b.n))
	case rc == 2:
		if err := ctx.Err(); err != nil {
			return newError(op, "", err)
		}
		return newError(op, "", errors.New("aborted because the context is closing"))
	case rc == -1:
		return newError(op, "", detail(ErrInvalidArgument, "llama.cpp rejected the batch; see the log"))
	case errbuf[0] != 0:
		return newError(op, "", fmt.Errorf("llama.cpp: %s", C.GoString(&errbuf[0])))
	}
	return newError(op, "", fmt.Errorf("llama_decode failed with code %d", rc))
}

// DecodeTokens evaluates tokens in sequence seq from position pos, splitting
// them into chunks of BatchSize. It requests logits only for the last token
// when wantLogits is set; read them with Logits(-1). ctx is checked between
// chunks and aborts a running chunk. It returns how many tokens reached the
// KV cache, which is less than len(tokens) on error.
func (c *Context) DecodeTokens(ctx context.Context, seq, pos int, tokens []Token, wantLogits bool) (int, error) {
	const op = "decode"
	if err := c.lock(op); err != nil {
		return 0, err
	}
	defer c.mu.Unlock()
	if err := c.checkSeq(seq); err != nil {
		return 0, newError(op, "", err)
	}
	if err := c.model.checkTokens(tokens); err != nil {
		return 0, newError(op, "", err)
	}
	if pos < 0 || int64(pos)+int64(len(tokens)) > math.MaxInt32 {
		return 0, newError(op, "", detail(ErrInvalidArgument, "positions %d..%d are outside 0..%d", pos, int64(pos)+int64(len(tokens)), math.MaxInt32))
	}
	done := 0
	seqs := []int{seq}
	for done < len(tokens) {
		n := min(c.nBatch, len(tokens)-done)
		c.batch.Clear()
		for i := range n {
			last := done+i == len(tokens)-1
			if err := c.batch.Add(tokens[done+i], pos+done+i, seqs, wantLogits && last); err != nil {
				return done, err
			}
		}
		before := c.seqPosMax(seq)
		if err := c.decode(ctx, c.batch); err != nil {
			return done + c.reached(seq, before, pos+done, n), err
		}
		done += n
	}
	// Wait for the backend, so that timings around this call are complete
	// (GPU backends return early) and llama.cpp's counters are updated.
	C.llama_synchronize(c.c)
	return done, nil
}

// decodeOutputs evaluates tokens in sequence seq from position pos in one
// batch, with logits for every token, and returns how many reached the KV
// cache.
func (c *Context) decodeOutputs(ctx context.Context, seq, pos int, tokens []Token) (int, error) {
	const op = "decode"
	if err := c.lock(op); err != nil {
		return 0, err
	}
	defer c.mu.Unlock()
	if err := c.checkSeq(seq); err != nil {
		return 0, newError(op, "", err)
	}
	if err := c.model.checkTokens(tokens); err != nil {
		return 0, newError(op, "", err)
	}
	if len(tokens) == 0 || len(tokens) > c.nBatch {
		return 0, newError(op, "", detail(ErrInvalidArgument, "%d tokens for a batch of 1..%d", len(tokens), c.nBatch))
	}
	seqs := []int{seq}
	c.batch.Clear()
	for i, t := range tokens {
		if err := c.batch.Add(t, pos+i, seqs, true); err != nil {
			return 0, err
		}
	}
	before := c.seqPosMax(seq)
	if err := c.decode(ctx, c.batch); err != nil {
		return c.reached(seq, before, pos, len(tokens)), err
	}
	C.llama_synchronize(c.c)
	return len(tokens), nil
}

// seqPosMax is SeqPosMax with c.mu held.
func (c *Context) seqPosMax(seq int) int {
	return int(C.llama_memory_seq_pos_max(C.llama_get_memory(c.c), C.llama_seq_id(seq)))
}

// reached counts the tokens of a failed chunk of n tokens at positions
// from start that reached the KV cache (the finished ubatches of an
// aborted decode stay there): the new positions past the sequence's end
// before the chunk, when that end was just before start.
func (c *Context) reached(seq, before, start, n int) int {
	after := c.seqPosMax(seq)
	if before != start-1 || after < start {
		return 0
	}
	return min(after-start+1, n)
}

// Logits returns a copy of the logits of output row i of the last decode:
// the index of a token whose logits flag was set in the batch, or -1 for the
// last such token.
func (c *Context) Logits(i int) ([]float32, error) {
	if err := c.lock("logits"); err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	if err := c.checkOutput(i); err != nil {
		return nil, newError("logits", "", err)
	}
	p := C.llama_get_logits_ith(c.c, C.int32_t(i))
	if p == nil {
		return nil, newError("logits", "", detail(ErrInvalidArgument, "no logits for batch index %d", i))
	}
	out := make([]float32, c.model.nVocab)
	copy(out, unsafe.Slice((*float32)(unsafe.Pointer(p)), c.model.nVocab))
	return out, nil
}

// checkOutput accepts a batch index whose logits the last decode computed,
// or a negative index counting back from the last output.
func (c *Context) checkOutput(i int) error {
	if i < 0 && -i <= len(c.outputs) {
		return nil
	}
	for _, o := range c.outputs {
		if o == i {
			return nil
		}
	}
	return detail(ErrInvalidArgument, "the last decode computed no logits for batch index %d", i)
}
