package llama

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"unsafe"
)

// The KV memory operations act on positions [p0, p1) of one sequence; a
// negative p0 means 0 and a negative p1 means "to the end".

func (c *Context) mem() C.llama_memory_t { return C.llama_get_memory(c.c) }

// SeqRemove removes positions [p0, p1) of sequence seq. It reports false when
// the memory cannot remove a partial range (recurrent and some sliding-window
// caches); removing a whole sequence always succeeds.
func (c *Context) SeqRemove(seq, p0, p1 int) (bool, error) {
	if err := c.lock("seq rm"); err != nil {
		return false, err
	}
	defer c.mu.Unlock()
	if err := c.checkSeq(seq); err != nil {
		return false, newError("seq rm", "", err)
	}
	return bool(C.llama_memory_seq_rm(c.mem(), C.llama_seq_id(seq), C.llama_pos(p0), C.llama_pos(p1))), nil
}

// SeqCopy makes positions [p0, p1) of src also belong to dst. Without a
// unified KV buffer llama.cpp can only copy whole sequences, so a partial
// range is refused there; copy everything and SeqRemove the tail instead.
func (c *Context) SeqCopy(src, dst, p0, p1 int) error {
	const op = "seq cp"
	if err := c.lock(op); err != nil {
		return err
	}
	defer c.mu.Unlock()
	if err := errors.Join(c.checkSeq(src), c.checkSeq(dst)); err != nil {
		return newError(op, "", err)
	}
	if !c.unified && src != dst && (p0 > 0 || p1 > 0) {
		return newError(op, "", detail(ErrInvalidArgument, "partial copy [%d, %d) needs a unified KV cache", p0, p1))
	}
	C.llama_memory_seq_cp(c.mem(), C.llama_seq_id(src), C.llama_seq_id(dst), C.llama_pos(p0), C.llama_pos(p1))
	return nil
}

// SeqKeep removes every sequence except seq.
func (c *Context) SeqKeep(seq int) error {
	if err := c.lock("seq keep"); err != nil {
		return err
	}
	defer c.mu.Unlock()
	if err := c.checkSeq(seq); err != nil {
		return newError("seq keep", "", err)
	}
	C.llama_memory_seq_keep(c.mem(), C.llama_seq_id(seq))
	return nil
}

// SeqAdd shifts positions [p0, p1) of seq by delta (context shifting). It
// needs a memory that can shift; see CanShift.
func (c *Context) SeqAdd(seq, p0, p1, delta int) error {
	const op = "seq add"
	if err := c.lock(op); err != nil {
		return err
	}
	defer c.mu.Unlock()
	if err := c.checkSeq(seq); err != nil {
		return newError(op, "", err)
	}
	if !bool(C.llama_memory_can_shift(c.mem())) {
		return newError(op, "", detail(ErrInvalidArgument, "this model's memory cannot shift positions"))
	}
	C.llama_memory_seq_add(c.mem(), C.llama_seq_id(seq), C.llama_pos(p0), C.llama_pos(p1), C.llama_pos(delta))
	return nil
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

// CanShift reports whether the memory supports SeqAdd.
func (c *Context) CanShift() bool {
	if c.lock("can shift") != nil {
		return false
	}
	defer c.mu.Unlock()
	return bool(C.llama_memory_can_shift(c.mem()))
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
	defer C.free(buf)
	got := C.llama_state_seq_get_data(c.c, (*C.uint8_t)(buf), n, C.llama_seq_id(seq))
	if got == 0 || got > n {
		return nil, newError(op, "", fmt.Errorf("llama_state_seq_get_data wrote %d of %d bytes", got, n))
	}
	return C.GoBytes(buf, C.int(got)), nil
}

// SetSeqState replaces sequence seq with a state from SeqState.
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
	buf := C.CBytes(state)
	defer C.free(buf)
	if C.llama_state_seq_set_data(c.c, (*C.uint8_t)(buf), C.size_t(len(state)), C.llama_seq_id(seq)) == 0 {
		return newError(op, "", errors.New("llama.cpp could not restore the state (wrong model or context?)"))
	}
	return nil
}

// SaveSeqState writes sequence seq and its tokens to a file.
func (c *Context) SaveSeqState(path string, seq int, tokens []Token) error {
	const op = "save seq state"
	if err := c.lock(op); err != nil {
		return err
	}
	defer c.mu.Unlock()
	if err := c.checkSeq(seq); err != nil {
		return newError(op, path, err)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var tp *C.llama_token
	if len(tokens) > 0 {
		tp = (*C.llama_token)(unsafe.Pointer(&tokens[0]))
	}
	if C.llama_state_seq_save_file(c.c, cpath, C.llama_seq_id(seq), tp, C.size_t(len(tokens))) == 0 {
		return newError(op, path, errors.New("llama.cpp could not write the file"))
	}
	return nil
}

// LoadSeqState restores sequence seq from a file written by SaveSeqState and
// returns its tokens.
func (c *Context) LoadSeqState(path string, seq int) ([]Token, error) {
	const op = "load seq state"
	if err := c.lock(op); err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	if err := c.checkSeq(seq); err != nil {
		return nil, newError(op, path, err)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, pathErr(op, path, err)
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	tokens := make([]Token, c.nCtxSeq+1)
	var n C.size_t
	if C.llama_state_seq_load_file(c.c, cpath, C.llama_seq_id(seq), (*C.llama_token)(unsafe.Pointer(&tokens[0])), C.size_t(len(tokens)), &n) == 0 {
		return nil, newError(op, path, errors.New("not a sequence state of this model and context"))
	}
	return tokens[:n], nil
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
