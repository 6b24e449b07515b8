package llama

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// ContextParams configures NewContext. The zero value gives a 4096-token
// context (or the trained length, if smaller) with llama.cpp's defaults.
type ContextParams struct {
	// ContextSize is n_ctx: KV cache cells shared by all sequences. With
	// Sequences > 1 and UnifiedKV false each sequence gets ContextSize /
	// Sequences, as llama-server's slots do. 0 means 4096, capped at the
	// trained context.
	ContextSize int
	// AllowBeyondTrained permits a ContextSize above the trained context,
	// where quality is not guaranteed. Without it such a size is an error.
	AllowBeyondTrained bool
	// BatchSize is n_batch, the most tokens one Decode call takes. 0 means 2048.
	BatchSize int
	// UBatchSize is n_ubatch, the physical batch size. 0 means 512.
	UBatchSize int
	// Sequences is n_seq_max, the number of independent sequences (slots).
	// 0 means 1.
	Sequences int
	// UnifiedKV makes all sequences share one KV buffer (kv_unified), which
	// helps when they share long prefixes.
	UnifiedKV bool
	// Threads is the number of threads for generation. 0 means the
	// physical cores, as llama.cpp chooses (see DefaultThreads). More than
	// MaxThreads (ggml's GGML_MAX_N_THREADS) are capped at it, with a
	// warning in the log.
	Threads int
	// BatchThreads is the number of threads for prompt processing. 0 means
	// Threads.
	BatchThreads int
	// FlashAttention is "auto" (the default when ""), "on" or "off".
	// llama.cpp's auto turns it on wherever the device supports it, the
	// CPU included; but the pinned ggml's CPU kernel is slower than plain
	// attention there on a prompt step over a long cache: it takes the
	// batch one query row at a time, a dot product per cached key, where
	// plain attention multiplies whole matrices with the tuned matrix
	// kernels. So auto is off when every layer runs on the CPU, unless the
	// V cache is quantized, which needs it; elsewhere llama.cpp decides.
	FlashAttention string
	// CacheTypeK and CacheTypeV are the KV cache types: "f16" (default),
	// "f32", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0" or "q5_1".
	CacheTypeK, CacheTypeV string
}

// Context is an inference context: a KV cache with its sequences, and the
// logits of the last decode. It is not safe for concurrent use, except that
// Close may be called from another goroutine: it aborts a running Decode.
type Context struct {
	mu        sync.Mutex
	c         *C.struct_llama_context
	model     *Model
	batch     *Batch // reused by DecodeTokens
	nCtx      int
	nCtxSeq   int
	nBatch    int
	nSeq      int
	unified   bool
	recurrent bool
	flashAttn string // "on", "off" or "auto" (llama.cpp decided); read by the tests
	closing   atomic.Bool
	// abortMu guards the abort flag, which llama.cpp's abort callback
	// reads during a decode: every store into it, and its free, happen
	// under this lock, so no store can land in freed memory. abortGen
	// counts decodes, so that a late cancel of one decode cannot abort the
	// next.
	abortMu  sync.Mutex
	abort    *C.int32_t
	abortGen uint64
	// pools are the persistent ggml thread pools of generation and prompt
	// processing (poolBatch is nil when both use pool).
	pool, poolBatch *C.struct_ggml_threadpool
	// outputs are the batch indices of the last decode that have logits;
	// llama.cpp aborts on any other index when built without NDEBUG.
	outputs []int
	leak    runtime.Cleanup // reports a Context dropped without Close
}

var cacheTypes = map[string]C.enum_ggml_type{
	"f32": C.GGML_TYPE_F32, "f16": C.GGML_TYPE_F16, "bf16": C.GGML_TYPE_BF16,
	"q8_0": C.GGML_TYPE_Q8_0, "q4_0": C.GGML_TYPE_Q4_0, "q4_1": C.GGML_TYPE_Q4_1,
	"iq4_nl": C.GGML_TYPE_IQ4_NL, "q5_0": C.GGML_TYPE_Q5_0, "q5_1": C.GGML_TYPE_Q5_1,
}

// CacheTypes returns the KV cache types that ContextParams.CacheTypeK and
// CacheTypeV accept, sorted.
func CacheTypes() []string { return slices.Sorted(maps.Keys(cacheTypes)) }

// maxSequences is LLAMA_MAX_SEQ.
const maxSequences = 256

// NewContext creates a context over m. It refuses parameters that
// llama.cpp would abort on or silently run beyond.
func NewContext(m *Model, p ContextParams) (*Context, error) {
	const op = "new context"
	info, err := m.Info()
	if err != nil {
		return nil, err
	}
	if v, ok := m.Meta("general.architecture"); !ok || v.Value == "" {
		return nil, newError(op, m.path, errors.New("model has no architecture"))
	}
	cp, err := contextParams(p, info, m.cpuOnly)
	if err != nil {
		return nil, newError(op, m.path, err)
	}
	c := &Context{model: m}
	err = m.use(op, func() error {
		if info.SizeBytes == 0 {
			return errors.New("model was loaded with VocabOnly")
		}
		errs := captureErrors()
		c.c = C.llama_init_from_model(m.m, cp)
		logged := errs.stop()
		if c.c == nil {
			if logged == "" {
				logged = "llama_init_from_model failed"
			}
			return errors.New(logged)
		}
		return nil
	})
	if err != nil {
		return nil, newError(op, m.path, err)
	}
	c.nCtx = int(C.llama_n_ctx(c.c))
	c.nCtxSeq = int(C.llama_n_ctx_seq(c.c))
	c.nBatch = int(C.llama_n_batch(c.c))
	c.nSeq = int(C.llama_n_seq_max(c.c))
	c.unified = bool(cp.kv_unified)
	c.flashAttn = flashAttnName(cp.flash_attn_type)
	c.recurrent = info.Recurrent
	c.abort = C.loop_abort_flag_new()
	if c.abort == nil {
		c.close()
		return nil, newError(op, m.path, errors.New("out of memory for the abort flag"))
	}
	C.loop_set_abort(c.c, c.abort)
	if !C.loop_attach_threadpools(c.c, cp.n_threads, cp.n_threads_batch, pollThreads(int(cp.n_threads), int(cp.n_threads_batch)), &c.pool, &c.poolBatch) {
		c.close()
		return nil, newError(op, m.path, fmt.Errorf("could not start %d threads", cp.n_threads))
	}
	if c.batch, err = NewBatch(c.nBatch, 1); err != nil {
		c.close()
		return nil, newError(op, m.path, err)
	}
	if err := m.adopt(c); err != nil {
		c.close()
		return nil, newError(op, m.path, err)
	}
	c.leak = runtime.AddCleanup(c, reportLeak, "context of "+m.path)
	return c, nil
}

func contextParams(p ContextParams, info Info, cpuOnly bool) (C.struct_llama_context_params, error) {
	cp := C.llama_context_default_params()
	n := p.ContextSize
	switch {
	case n < 0:
		return cp, detail(ErrInvalidArgument, "context size %d is negative", n)
	case n == 0:
		n = min(4096, info.TrainContext)
	case n > info.TrainContext && !p.AllowBeyondTrained:
		return cp, detail(ErrInvalidArgument, "context size %d is beyond the trained context of %d tokens", n, info.TrainContext)
	}
	seqs := cmpOr(p.Sequences, 1)
	if seqs < 1 || seqs > maxSequences {
		return cp, detail(ErrInvalidArgument, "%d sequences is outside 1..%d", seqs, maxSequences)
	}
	batch, ubatch := cmpOr(p.BatchSize, 2048), cmpOr(p.UBatchSize, 512)
	for _, v := range []struct {
		name string
		n    int
	}{{"context size", n}, {"batch size", batch}, {"ubatch size", ubatch}} {
		if v.n < 1 || v.n > math.MaxInt32 {
			return cp, detail(ErrInvalidArgument, "%s %d is outside 1..%d", v.name, v.n, math.MaxInt32)
		}
	}
	threads, err := threadCount("threads", cmpOr(p.Threads, DefaultThreads()))
	if err != nil {
		return cp, err
	}
	batchThreads, err := threadCount("batch threads", cmpOr(p.BatchThreads, threads))
	if err != nil {
		return cp, err
	}
	cp.no_perf = C.bool(false) // keep llama_perf_context's counters
	cp.n_ctx = C.uint32_t(n)
	cp.n_batch = C.uint32_t(batch)
	cp.n_ubatch = C.uint32_t(ubatch)
	cp.n_seq_max = C.uint32_t(seqs)
	cp.kv_unified = C.bool(p.UnifiedKV)
	cp.n_threads = C.int32_t(threads)
	cp.n_threads_batch = C.int32_t(batchThreads)
	if err := kvParams(&cp, p, cpuOnly); err != nil {
		return cp, err
	}
	return cp, nil
}

// kvParams sets flash attention and the KV cache types; cpuOnly says that
// every layer runs on the CPU (see ContextParams.FlashAttention).
func kvParams(cp *C.struct_llama_context_params, p ContextParams, cpuOnly bool) error {
	switch strings.ToLower(p.FlashAttention) {
	case "", "auto":
		cp.flash_attn_type = C.LLAMA_FLASH_ATTN_TYPE_AUTO
	case "on", "true", "1":
		cp.flash_attn_type = C.LLAMA_FLASH_ATTN_TYPE_ENABLED
	case "off", "false", "0":
		cp.flash_attn_type = C.LLAMA_FLASH_ATTN_TYPE_DISABLED
	default:
		return detail(ErrInvalidArgument, "flash attention %q is not auto, on or off", p.FlashAttention)
	}
	for _, kv := range []struct {
		name string
		dst  *C.enum_ggml_type
	}{{p.CacheTypeK, &cp.type_k}, {p.CacheTypeV, &cp.type_v}} {
		if kv.name == "" {
			continue
		}
		t, ok := cacheTypes[strings.ToLower(kv.name)]
		if !ok {
			return detail(ErrInvalidArgument, "unknown KV cache type %q", kv.name)
		}
		*kv.dst = t
	}
	quantizedV := cp.type_v != C.GGML_TYPE_F16 && cp.type_v != C.GGML_TYPE_F32 && cp.type_v != C.GGML_TYPE_BF16
	if quantizedV && cp.flash_attn_type == C.LLAMA_FLASH_ATTN_TYPE_DISABLED {
		return detail(ErrInvalidArgument, "a quantized V cache needs flash attention")
	}
	if cpuOnly && !quantizedV && cp.flash_attn_type == C.LLAMA_FLASH_ATTN_TYPE_AUTO {
		cp.flash_attn_type = C.LLAMA_FLASH_ATTN_TYPE_DISABLED
	}
	return nil
}

// MaxThreads is ggml's GGML_MAX_N_THREADS: ggml-cpu asserts on more.
const MaxThreads = 512

// threadCount refuses a negative count and caps one above MaxThreads,
// saying so in the log.
func threadCount(what string, n int) (int, error) {
	if n < 1 {
		return 0, detail(ErrInvalidArgument, "%s %d must be at least 1", what, n)
	}
	if n > MaxThreads {
		logState.Lock()
		l := logState.logger
		logState.Unlock()
		l.Warn(fmt.Sprintf("llama: %s %d capped at %d (GGML_MAX_N_THREADS)", what, n, MaxThreads))
		n = MaxThreads
	}
	return n, nil
}

// pollThreads reports whether a pool's threads may busy-wait for work:
// only when they all fit on the CPUs, or the spinning ones take the cores
// the working ones need.
func pollThreads(gen, batch int) C.bool {
	return C.bool(max(gen, batch) <= runtime.NumCPU())
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// Close frees the context. A Decode running in another goroutine is aborted
// first. Calling Close again does nothing.
func (c *Context) Close() error {
	if c.closing.Load() {
		return nil
	}
	c.close()
	c.model.release(c)
	return nil
}

// close aborts a running decode, then frees the C side once the decode has
// returned; the model calls it when it closes first.
func (c *Context) close() {
	c.abortMu.Lock()
	c.closing.Store(true)
	c.storeAbort()
	c.abortMu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.c == nil {
		return
	}
	c.leak.Stop()
	C.llama_free(c.c)
	c.c = nil
	C.loop_free_threadpools(c.pool, c.poolBatch)
	c.pool, c.poolBatch = nil, nil
	if c.batch != nil {
		c.batch.Close()
	}
	c.abortMu.Lock()
	C.free(unsafe.Pointer(c.abort))
	c.abort = nil
	c.abortMu.Unlock()
}

// storeAbort sets the abort flag; abortMu is held.
func (c *Context) storeAbort() {
	if c.abort != nil {
		atomic.StoreInt32((*int32)(unsafe.Pointer(c.abort)), 1)
	}
}

// armAbort starts decode number gen: it clears the flag unless the
// context is closing, in which case the decode must not start.
func (c *Context) armAbort() (gen uint64, ok bool) {
	c.abortMu.Lock()
	defer c.abortMu.Unlock()
	if c.closing.Load() || c.abort == nil {
		return 0, false
	}
	c.abortGen++
	atomic.StoreInt32((*int32)(unsafe.Pointer(c.abort)), 0)
	return c.abortGen, true
}

// abortDecode aborts decode number gen, if it is still the current one.
func (c *Context) abortDecode(gen uint64) {
	c.abortMu.Lock()
	defer c.abortMu.Unlock()
	if c.abortGen == gen {
		c.storeAbort()
	}
}

// lock locks the context for one operation, or returns ErrClosed.
func (c *Context) lock(op string) error {
	c.mu.Lock()
	if c.c == nil {
		c.mu.Unlock()
		return newError(op, "", ErrClosed)
	}
	return nil
}

// Model returns the model the context was made from.
func (c *Context) Model() *Model { return c.model }

// Size returns n_ctx, the KV cells over all sequences.
func (c *Context) Size() int { return c.nCtx }

// SeqSize returns the cells one sequence can hold (n_ctx_seq).
func (c *Context) SeqSize() int { return c.nCtxSeq }

// BatchSize returns n_batch.
func (c *Context) BatchSize() int { return c.nBatch }

func flashAttnName(t C.enum_llama_flash_attn_type) string {
	switch t {
	case C.LLAMA_FLASH_ATTN_TYPE_ENABLED:
		return "on"
	case C.LLAMA_FLASH_ATTN_TYPE_DISABLED:
		return "off"
	}
	return "auto"
}

// threads returns the generation and prompt-processing thread counts,
// for the tests (export_test.go).
func (c *Context) threads() (gen, batch int) {
	if c.lock("threads") != nil {
		return 0, 0
	}
	defer c.mu.Unlock()
	return int(C.llama_n_threads(c.c)), int(C.llama_n_threads_batch(c.c))
}

// checkSeq rejects sequence ids llama.cpp would assert on.
func (c *Context) checkSeq(seq int) error {
	if seq < 0 || seq >= c.nSeq {
		return detail(ErrInvalidArgument, "sequence %d is outside 0..%d", seq, c.nSeq-1)
	}
	return nil
}

// String describes the context for logs.
func (c *Context) String() string {
	return fmt.Sprintf("llama.Context(n_ctx=%d, n_seq=%d, n_batch=%d)", c.nCtx, c.nSeq, c.nBatch)
}
