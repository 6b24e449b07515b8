package llama

/*
#include <stdlib.h>
#include "graph.h"
*/
import "C"

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"unsafe"
)

// Training runs on a graph of loop's own (graph.cpp), not on llama.cpp's.
//
// Why: llama.cpp's graphs write K and V into the KV cache with
// ggml_set_rows, which ggml cannot differentiate, so llama_opt_epoch
// aborts on any trained tensor that feeds attention (upstream issues
// ggml-org/llama.cpp#16258 and #18805) and could only train the output
// head. A Trainer reads the base GGUF's F32 tensors itself and builds the
// qwen2 forward pass from ggml ops that all have a backward pass: the
// embedding rows, RMS norms, the Q/K/V projections with their biases,
// NEOX RoPE, grouped-query attention through mul_mat's broadcasting with a
// causal diag_mask_inf and softmax, SiLU-gated feed-forward, the output
// (token_embd when tied). Every weight is trained with AdamW on the CPU
// backend. TestTrainerLogits checks the graph against llama.cpp's own
// logits, TestTrainerGradients its backward pass against finite
// differences.
//
// The optimizer step is ggml-opt's own op (ggml_opt_step_adamw, with the
// parameters ggml_opt_eval computes), but the step graph is built here,
// as ggml_opt_alloc would, for two reasons. Without static graphs (which
// cap a graph at 2,048 nodes) ggml-opt never clears the gradient
// accumulators when each window is one step, so every step would follow
// the sum of all the gradients so far. And ggml-alloc computes
// RMS_NORM_BACK in place over its incoming gradient, which the CPU kernel
// overwrites before it reads it, so every gradient below a norm comes out
// wrong (the loss rises); graph.cpp keeps those tensors from being reused,
// which needs the graph before it is allocated.
//
// The loss is the cross-entropy of the positions a Window marks as
// targets. The labels are one row per position, as llama.cpp's
// opt_epoch_iter sets them: a target's row is one-hot, every other row is
// zero and adds nothing to the loss or the gradient. ggml divides the sum
// by all the window's positions, so a window's gradient is scaled by
// (targets/positions); AdamW is indifferent to that scale. The loss
// reported is the mean over the targets. A window without a target is not
// run at all (no step).
//
// Cancellation: ctx is checked before each window; a window runs to its
// end, so the weights are always those after a whole optimizer step.

// TrainParams configures NewTrainer. The zero value trains windows of 512
// tokens (or the trained context, if shorter) with AdamW at a learning
// rate of 1e-4, no weight decay, on DefaultThreads threads.
type TrainParams struct {
	// ContextSize is the window: the positions of one datapoint, at most
	// the model's trained context unless AllowBeyondTrained is set. 0
	// means 512, or the trained context when shorter.
	ContextSize int
	// AllowBeyondTrained permits a ContextSize beyond the trained context
	// (up to 32768): RoPE carries on past it unscaled, as llama.cpp does
	// with a context it is allowed to extend.
	AllowBeyondTrained bool
	// LearningRate is AdamW's alpha. 0 means 1e-4.
	LearningRate float64
	// WeightDecay is AdamW's decoupled weight decay, in [0, 1]. 0 means none.
	WeightDecay float64
	// Threads is the number of CPU threads. 0 means DefaultThreads.
	Threads int
	// PrefixEvery lets a training window whose prefix (Window.Prefix) is
	// the last window's reuse that prefix's keys and values while fewer
	// than PrefixEvery optimizer steps have changed the weights since they
	// were computed, instead of running the prefix forward again: the
	// prefix is the same system prompt and tools in every chat, and its
	// forward pass is about a fifth of a window's time. The rest of the
	// window then attends to keys and values up to PrefixEvery-1 steps
	// old. 0 or 1: only while no step has changed the weights (an
	// evaluation pass), which is exact.
	PrefixEvery int
}

// trainShape is the hyper-parameters a Trainer read from the GGUF
// metadata.
type trainShape struct {
	Embedding    int     // qwen2.embedding_length
	Layers       int     // qwen2.block_count
	Heads        int     // qwen2.attention.head_count
	HeadsKV      int     // qwen2.attention.head_count_kv
	FeedForward  int     // qwen2.feed_forward_length
	TrainContext int     // qwen2.context_length
	Vocab        int     // rows of token_embd.weight
	RMSEpsilon   float64 // qwen2.attention.layer_norm_rms_epsilon
	RopeFreqBase float64 // qwen2.rope.freq_base
	TiedOutput   bool    // no output.weight: token_embd.weight is the output
}

// Trainer holds a qwen2 model's weights, its training graph and the
// optimizer state. It is not safe for concurrent use, except that Close
// may be called from another goroutine: it waits for the running window.
type Trainer struct {
	mu     sync.Mutex
	g      *C.struct_loop_gt
	path   string
	shape  trainShape
	n      int
	maxLen int // of a window or a logits call
	lr, wd float64
	opt    bool
}

// NewTrainer reads the qwen2 GGUF file at path, which must hold F32
// tensors only. A file of another architecture or type is refused with
// ErrInvalidArgument, a file that is not GGUF with ErrNotGGUF.
func NewTrainer(ctx context.Context, path string, p TrainParams) (*Trainer, error) {
	const op = "new trainer"
	if err := ctx.Err(); err != nil {
		return nil, newError(op, path, err)
	}
	if _, err := checkGGUF(path); err != nil {
		return nil, newError(op, path, err)
	}
	lr, err := p.check()
	if err != nil {
		return nil, newError(op, path, err)
	}
	threads, err := threadCount("threads", cmpOr(p.Threads, DefaultThreads()))
	if err != nil {
		return nil, newError(op, path, err)
	}
	g, hp, err := openGraph(path, threads)
	if err != nil {
		return nil, newError(op, path, err)
	}
	t := &Trainer{g: g, path: path, lr: lr, wd: p.WeightDecay, shape: trainShape{
		Embedding: int(hp.n_embd), Layers: int(hp.n_layer), Heads: int(hp.n_head), HeadsKV: int(hp.n_head_kv),
		FeedForward: int(hp.n_ff), TrainContext: int(hp.n_ctx_train), Vocab: int(hp.n_vocab),
		RMSEpsilon: float64(hp.eps), RopeFreqBase: float64(hp.freq_base), TiedOutput: bool(hp.tied)}}
	if p.PrefixEvery > 1 {
		C.loop_gt_set_prefix_every(g, C.int32_t(p.PrefixEvery))
	}
	t.n = p.ContextSize
	if t.n == 0 {
		t.n = min(512, t.shape.TrainContext)
	}
	t.maxLen = t.shape.TrainContext
	if p.AllowBeyondTrained {
		t.maxLen = max(t.maxLen, maxWindow)
	}
	if t.n > t.maxLen {
		t.Close()
		if t.n > maxWindow {
			return nil, newError(op, path, detail(ErrContextFull, "a window of %d tokens is longer than %d", t.n, maxWindow))
		}
		return nil, newError(op, path, detail(ErrContextFull, "a window of %d tokens is longer than the trained context of %d (set AllowBeyondTrained)", t.n, t.shape.TrainContext))
	}
	return t, nil
}

// check refuses parameters out of range and returns the learning rate
// (1e-4 for 0).
func (p TrainParams) check() (float64, error) {
	switch {
	case p.LearningRate < 0 || math.IsNaN(p.LearningRate) || math.IsInf(p.LearningRate, 0):
		return 0, detail(ErrInvalidArgument, "learning rate %v is not a positive number", p.LearningRate)
	case !(p.WeightDecay >= 0 && p.WeightDecay <= 1):
		return 0, detail(ErrInvalidArgument, "weight decay %v is outside [0, 1]", p.WeightDecay)
	case p.ContextSize < 0:
		return 0, detail(ErrInvalidArgument, "context size %d", p.ContextSize)
	case p.PrefixEvery < 0 || p.PrefixEvery > 1<<20:
		return 0, detail(ErrInvalidArgument, "prefix every %d steps", p.PrefixEvery)
	}
	lr := cmp.Or(p.LearningRate, 1e-4)
	return lr, checkLearningRate(lr)
}

// checkLearningRate refuses a rate that is not positive in float32, the
// type AdamW's parameters have.
func checkLearningRate(lr float64) error {
	if !(lr > 0) || math.IsInf(lr, 0) {
		return detail(ErrInvalidArgument, "learning rate %v is not a positive number", lr)
	}
	if float32(lr) <= 0 {
		return detail(ErrInvalidArgument, "learning rate %v rounds to 0 in float32", lr)
	}
	return nil
}

// openGraph reads the GGUF file at path into loop's training graph, with
// its hyper-parameters; the error says whether the file is not GGUF or
// not trainable.
func openGraph(path string, threads int) (*C.struct_loop_gt, C.struct_loop_gt_hparams, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var hp C.struct_loop_gt_hparams
	var code C.int32_t
	var errbuf [512]C.char
	errs := captureErrors()
	g := C.loop_gt_open(cpath, C.int32_t(threads), &hp, &code, &errbuf[0], C.size_t(len(errbuf)))
	logged := errs.stop()
	if g != nil {
		return g, hp, nil
	}
	msg := C.GoString(&errbuf[0])
	switch code {
	case C.LOOP_GT_NOT_GGUF:
		return nil, hp, detail(ErrNotGGUF, "%s", msg)
	case C.LOOP_GT_INVALID:
		return nil, hp, detail(ErrInvalidArgument, "%s", msg)
	}
	return nil, hp, fmt.Errorf("%s%s", msg, logged)
}

// maxWindow is the longest window or logits call: its attention scores
// alone take 16 bytes per head and square token.
const maxWindow = 32768

// SetLearningRate sets AdamW's learning rate of the next steps, for a
// schedule (warm-up, decay).
func (t *Trainer) SetLearningRate(lr float64) error {
	if err := checkLearningRate(lr); err != nil {
		return newError("set learning rate", "", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.g == nil {
		return newError("set learning rate", "", ErrClosed)
	}
	t.lr = lr
	C.loop_gt_set_lr(t.g, C.float(lr))
	return nil
}

// checkTokens refuses tokens outside the vocabulary, on which ggml's
// get_rows would read out of bounds.
func (t *Trainer) checkTokens(tokens []Token) error {
	for i, tok := range tokens {
		if tok < 0 || int(tok) >= t.shape.Vocab {
			return detail(ErrInvalidArgument, "token %d at index %d is outside the vocabulary of %d", tok, i, t.shape.Vocab)
		}
	}
	return nil
}

// logits runs the training graph's forward pass on tokens, at positions
// 0..len(tokens)-1 (at most the trained context, or 32768 with
// AllowBeyondTrained), and returns len(tokens) rows of shape.Vocab logits,
// row after row, in a new slice. For tests (export_test.go), which check
// the graph against llama.cpp's own forward pass.
func (t *Trainer) logits(ctx context.Context, tokens []Token) ([]float32, error) {
	const op = "trainer logits"
	if err := ctx.Err(); err != nil {
		return nil, newError(op, "", err)
	}
	if len(tokens) == 0 || len(tokens) > t.maxLen {
		return nil, newError(op, "", detail(ErrContextFull, "%d tokens, more than %d", len(tokens), t.maxLen))
	}
	if err := t.checkTokens(tokens); err != nil {
		return nil, newError(op, "", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.g == nil {
		return nil, newError(op, "", ErrClosed)
	}
	out := make([]float32, len(tokens)*t.shape.Vocab)
	var errbuf [256]C.char
	errs := captureErrors()
	ok := C.loop_gt_logits(t.g, (*C.int32_t)(unsafe.Pointer(&tokens[0])), C.int32_t(len(tokens)),
		(*C.float)(unsafe.Pointer(&out[0])), &errbuf[0], C.size_t(len(errbuf)))
	logged := errs.stop()
	if !ok {
		return nil, newError(op, "", fmt.Errorf("%s%s", C.GoString(&errbuf[0]), logged))
	}
	return out, nil
}

// Train runs one AdamW step on w and returns the mean loss of its targets
// before the step (0, and no step, when it has none). w holds 2 to
// ContextSize+1 tokens (PackWindows' are all ContextSize+1, PackWhole's
// as long as their documents).
func (t *Trainer) Train(ctx context.Context, w Window) (float64, error) {
	return t.run(ctx, "train", w, true)
}

// Eval returns the mean loss of w's targets without changing the weights.
func (t *Trainer) Eval(ctx context.Context, w Window) (float64, error) {
	return t.run(ctx, "eval", w, false)
}

func (t *Trainer) run(ctx context.Context, op string, w Window, train bool) (float64, error) {
	if err := ctx.Err(); err != nil {
		return 0, newError(op, "", err)
	}
	if len(w.Tokens) < 2 || len(w.Tokens) > t.n+1 {
		return 0, newError(op, "", detail(ErrInvalidArgument, "window of %d tokens, want 2 to %d (the context size %d and one label)", len(w.Tokens), t.n+1, t.n))
	}
	if w.Targets != nil && len(w.Targets) != len(w.Tokens) {
		return 0, newError(op, "", detail(ErrInvalidArgument, "%d targets for %d tokens", len(w.Targets), len(w.Tokens)))
	}
	if err := t.checkTokens(w.Tokens); err != nil {
		return 0, newError(op, "", err)
	}
	if w.Prefix < 0 || w.Prefix >= len(w.Tokens)-1 {
		return 0, newError(op, "", detail(ErrInvalidArgument, "a prefix of %d positions in a window of %d", w.Prefix, len(w.Tokens)-1))
	}
	if w.Prefix > 0 && (w.Targets == nil || slices.Contains(w.Targets[1:w.Prefix+1], true)) {
		return 0, newError(op, "", detail(ErrInvalidArgument, "a target in the prefix of %d positions", w.Prefix))
	}
	n := len(w.Tokens) - 1
	mask := make([]uint8, n)
	for i := range mask {
		if w.Targets == nil || w.Targets[i+1] {
			mask[i] = 1
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.g == nil {
		return 0, newError(op, "", ErrClosed)
	}
	var errbuf [256]C.char
	errs := captureErrors()
	defer errs.stop()
	if err := t.initOpt(&errbuf); err != nil {
		return 0, newError(op, "", err)
	}
	var loss C.double
	ok := C.loop_gt_window(t.g, (*C.int32_t)(unsafe.Pointer(&w.Tokens[0])), (*C.int32_t)(unsafe.Pointer(&w.Tokens[1])),
		(*C.uint8_t)(unsafe.Pointer(&mask[0])), C.int32_t(n), C.int32_t(w.Prefix), C.bool(train), &loss, &errbuf[0], C.size_t(len(errbuf)))
	if !ok {
		return 0, newError(op, "", errors.New(C.GoString(&errbuf[0])))
	}
	return float64(loss), nil
}

// Close frees the weights, the graph and the optimizer state. Calling it
// again does nothing.
func (t *Trainer) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.g != nil {
		C.loop_gt_free(t.g)
		t.g = nil
	}
	return nil
}

// gradCheck returns the norm of the gradient of the loss of w (its
// targets, or every position) with respect to the named weight, and the
// loss's slope along that gradient measured by finite differences of h
// (see loop_gt_grad_check). For tests.
func (t *Trainer) gradCheck(w Window, name string, h float64) (norm, slope float64, err error) {
	tokens := w.Tokens
	if len(tokens) < 2 || len(tokens)-1 > t.maxLen {
		return 0, 0, detail(ErrInvalidArgument, "%d tokens", len(tokens))
	}
	if w.Targets != nil && len(w.Targets) != len(tokens) {
		return 0, 0, detail(ErrInvalidArgument, "%d targets for %d tokens", len(w.Targets), len(tokens))
	}
	var mask *C.uint8_t
	if w.Targets != nil {
		m := make([]C.uint8_t, len(tokens)-1)
		for i, b := range w.Targets[1:] {
			if b {
				m[i] = 1
			}
		}
		mask = &m[0]
	}
	if err := t.checkTokens(tokens); err != nil {
		return 0, 0, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.g == nil {
		return 0, 0, ErrClosed
	}
	var errbuf [256]C.char
	if err := t.initOpt(&errbuf); err != nil {
		return 0, 0, err
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var cn, cs C.double
	if !C.loop_gt_grad_check(t.g, (*C.int32_t)(unsafe.Pointer(&tokens[0])), (*C.int32_t)(unsafe.Pointer(&tokens[1])),
		mask, C.int32_t(len(tokens)-1), cname, C.double(h), &cn, &cs, &errbuf[0], C.size_t(len(errbuf))) {
		return 0, 0, errors.New(C.GoString(&errbuf[0]))
	}
	return float64(cn), float64(cs), nil
}

// initOpt makes the optimizer state on first use; t.mu is held.
func (t *Trainer) initOpt(errbuf *[256]C.char) error {
	if t.opt {
		return nil
	}
	if !C.loop_gt_opt_init(t.g, C.float(t.lr), C.float(t.wd), &errbuf[0], C.size_t(len(errbuf))) {
		return errors.New(C.GoString(&errbuf[0]))
	}
	t.opt = true
	return nil
}
