package llama

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// The KV memory operations act on positions [p0, p1) of one sequence; a
// negative p0 means 0 and a negative p1 means "to the end".

func (c *Context) mem() C.llama_memory_t { return C.llama_get_memory(c.c) }

// checkPositions refuses positions (or a shift) that llama.cpp's int32
// llama_pos cannot hold; a truncated one would silently mean another
// range (1<<32 would become 0, "from the start").
func checkPositions(ps ...int) error {
	for _, p := range ps {
		if p < math.MinInt32 || p > math.MaxInt32 {
			return detail(ErrInvalidArgument, "position %d is outside llama.cpp's int32", p)
		}
	}
	return nil
}

// SeqRemove removes positions [p0, p1) of sequence seq. It reports false when
// the memory cannot remove a partial range (recurrent and some sliding-window
// caches); removing a whole sequence always succeeds.
func (c *Context) SeqRemove(seq, p0, p1 int) (bool, error) {
	if err := c.lock("seq rm"); err != nil {
		return false, err
	}
	defer c.mu.Unlock()
	if err := errors.Join(c.checkSeq(seq), checkPositions(p0, p1)); err != nil {
		return false, newError("seq rm", "", err)
	}
	return bool(C.llama_memory_seq_rm(c.mem(), C.llama_seq_id(seq), C.llama_pos(p0), C.llama_pos(p1))), nil
}

// SeqPosMin returns the smallest position held for seq, or -1 when empty.
func (c *Context) SeqPosMin(seq int) int { return c.seqPos(seq, true) }

// SeqPosMax returns the largest position held for seq, or -1 when empty.
func (c *Context) SeqPosMax(seq int) int { return c.seqPos(seq, false) }

func (c *Context) seqPos(seq int, minimum bool) int {
	if c.lock("seq pos") != nil {
		return -1
	}
	defer c.mu.Unlock()
	if c.checkSeq(seq) != nil {
		return -1
	}
	if minimum {
		return int(C.llama_memory_seq_pos_min(c.mem(), C.llama_seq_id(seq)))
	}
	return int(C.llama_memory_seq_pos_max(c.mem(), C.llama_seq_id(seq)))
}

// ClearMemory empties the KV cache of every sequence; with data it also
// zeroes the buffers.
func (c *Context) ClearMemory(data bool) error {
	if err := c.lock("clear memory"); err != nil {
		return err
	}
	defer c.mu.Unlock()
	C.llama_memory_clear(c.mem(), C.bool(data))
	return nil
}

// SeqState returns the serialized KV state of one sequence.
func (c *Context) SeqState(seq int) ([]byte, error) {
	const op = "seq state"
	if err := c.lock(op); err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	if err := c.checkSeq(seq); err != nil {
		return nil, newError(op, "", err)
	}
	n := C.llama_state_seq_get_size(c.c, C.llama_seq_id(seq))
	if n == 0 {
		return nil, nil
	}
	buf := C.malloc(n)
	if buf == nil {
		return nil, newError(op, "", fmt.Errorf("out of memory for a state of %d bytes", n))
	}
	defer C.free(buf)
	got := C.llama_state_seq_get_data(c.c, (*C.uint8_t)(buf), n, C.llama_seq_id(seq))
	if got == 0 || got > n {
		return nil, newError(op, "", fmt.Errorf("llama_state_seq_get_data wrote %d of %d bytes", got, n))
	}
	// A copy, not C.GoBytes: its length is a C int, and states of an 8B
	// model pass 2 GiB near 16k tokens.
	return bytes.Clone(unsafe.Slice((*byte)(buf), int(got))), nil
}

// SetSeqState replaces sequence seq with a state from SeqState. The state's
// header is checked first (llama.cpp would reserve room for whatever cell
// count it claims); when llama.cpp refuses the state, the sequence is left
// empty, never half restored.
func (c *Context) SetSeqState(seq int, state []byte) error {
	const op = "set seq state"
	if err := c.lock(op); err != nil {
		return err
	}
	defer c.mu.Unlock()
	if err := c.checkSeq(seq); err != nil {
		return newError(op, "", err)
	}
	if len(state) == 0 {
		C.llama_memory_seq_rm(c.mem(), C.llama_seq_id(seq), -1, -1)
		return nil
	}
	if err := c.checkState(state); err != nil {
		return newError(op, "", err)
	}
	buf := C.CBytes(state)
	defer C.free(buf)
	errs := captureErrors()
	ok := C.llama_state_seq_set_data(c.c, (*C.uint8_t)(buf), C.size_t(len(state)), C.llama_seq_id(seq)) != 0
	logged := errs.stop()
	if !ok {
		C.llama_memory_seq_rm(c.mem(), C.llama_seq_id(seq), -1, -1)
		if logged == "" {
			logged = "wrong model or context?"
		}
		return newError(op, "", fmt.Errorf("llama.cpp could not restore the state (%s)", logged))
	}
	return nil
}

// checkState reads the header of a sequence state of a KV cache: the
// number of streams, then per stream a cell count and its cells. A
// sequence's cells fill at most one stream's share of the context, and each
// takes at least 12 bytes of the blob. Recurrent memory has another layout
// and is left to llama.cpp.
func (c *Context) checkState(state []byte) error {
	if c.recurrent {
		return nil
	}
	if len(state) < 8 {
		return detail(ErrInvalidArgument, "a state of %d bytes is too short", len(state))
	}
	streams := binary.LittleEndian.Uint32(state)
	if want := c.streams(); int64(streams) != int64(want) {
		return detail(ErrInvalidArgument, "the state has %d KV streams, this context %d", streams, want)
	}
	cells := binary.LittleEndian.Uint32(state[4:])
	if int64(cells) > int64(c.nCtxSeq) || int64(cells)*12 > int64(len(state)-8) {
		return detail(ErrInvalidArgument, "the state claims %d cells; a sequence holds at most %d and the state has %d bytes",
			cells, c.nCtxSeq, len(state))
	}
	return nil
}

// streams is the number of KV streams: one shared by all sequences, or one
// each.
func (c *Context) streams() int {
	if c.unified {
		return 1
	}
	return c.nSeq
}

// Perf holds llama.cpp's performance counters (llama_perf_context).
type Perf struct {
	LoadMs       float64 // model load time
	PromptMs     float64 // time spent on prompt tokens
	EvalMs       float64 // time spent on generated tokens
	PromptTokens int     // prompt tokens processed
	EvalTokens   int     // tokens generated
	GraphReused  int     // times a compute graph was reused
}

// Perf returns the counters since the context was made or ResetPerf. As in
// llama.cpp, token counts read at least 1, and a decode is counted as prompt
// work when it has more than one token and as generation when it has one.
func (c *Context) Perf() Perf {
	if c.lock("perf") != nil {
		return Perf{}
	}
	defer c.mu.Unlock()
	C.llama_synchronize(c.c)
	d := C.llama_perf_context(c.c)
	return Perf{
		LoadMs: float64(d.t_load_ms), PromptMs: float64(d.t_p_eval_ms), EvalMs: float64(d.t_eval_ms),
		PromptTokens: int(d.n_p_eval), EvalTokens: int(d.n_eval), GraphReused: int(d.n_reused),
	}
}

// ResetPerf zeroes the counters.
func (c *Context) ResetPerf() {
	if c.lock("perf reset") != nil {
		return
	}
	defer c.mu.Unlock()
	C.llama_perf_context_reset(c.c)
}

// SaveState returns the KV state of the slot's sequence and the tokens it
// holds, copies both: what RestoreState takes back, in this context or a
// later one on the same model.
func (s *Slot) SaveState() ([]byte, []Token, error) {
	state, err := s.ctx.SeqState(s.seq)
	if err != nil {
		return nil, nil, err
	}
	return state, slices.Clone(s.tokens), nil
}

// RestoreState makes the slot hold tokens, with state (from SaveState) as
// their KV cache, so that the next Prefill reuses their common prefix with
// its prompt. The state is untrusted: besides SetSeqState's checks, it
// must hold exactly the positions 0 to len(tokens)-1, and the tokens must
// be the model's. On any error the slot is left empty.
func (s *Slot) RestoreState(state []byte, tokens []Token) error {
	const op = "restore slot"
	if err := s.Clear(); err != nil {
		return err
	}
	if len(tokens) == 0 || len(tokens) > s.ctx.SeqSize() {
		return newError(op, "", detail(ErrInvalidArgument, "%d tokens: want 1 to %d, the sequence's context", len(tokens), s.ctx.SeqSize()))
	}
	if err := s.ctx.model.checkTokens(tokens); err != nil {
		return newError(op, "", err)
	}
	if err := s.ctx.SetSeqState(s.seq, state); err != nil {
		return err
	}
	if lo, hi := s.ctx.SeqPosMin(s.seq), s.ctx.SeqPosMax(s.seq); lo != 0 || hi != len(tokens)-1 {
		s.Clear()
		return newError(op, "", detail(ErrInvalidArgument, "the state holds positions %d to %d, its %d tokens want 0 to %d", lo, hi, len(tokens), len(tokens)-1))
	}
	s.tokens = slices.Clone(tokens)
	return nil
}
