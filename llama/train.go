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
	"sync"
	"unsafe"
)

// Training runs llama.cpp's own optimizer (llama_opt_init and
// llama_opt_epoch over ggml-opt's AdamW) on windows of tokens.
//
// What is trained: the output head only, output.weight and
// output_norm.weight (with their biases, if any); the blocks and the
// embeddings stay frozen. This is forced by the pinned llama.cpp, not
// chosen: its graphs store K and V with ggml_set_rows, which ggml cannot
// differentiate (ggml_build_backward_expand aborts on any parameter that
// feeds a K or V, upstream issues ggml-org/llama.cpp#16258 and #18805, the
// same crash as llama-finetune's), and the gradients it computes for the
// last block's feed-forward weights point uphill (with only
// blk.N.ffn_down, ffn_gate or ffn_up trainable the loss of the very window
// trained on rises at every step, even at a learning rate of 1e-5), while
// those of the head are right (the loss falls steadily). Training every
// weight needs a newer llama.cpp or a training graph of loop's own.
//
// Which positions are trained: every position of every window. llama.cpp's
// public training API has no label mask: llama_opt_epoch turns each label
// into a one-hot row and takes the cross-entropy of every position, so the
// prompt of a chat is learnt as much as the replies. Masking the prompt
// would need the labels tensor of ggml-opt inside llama_context, which
// only llama.cpp's internals reach; loop trains on whole transcripts.
//
// The context length: llama_opt_epoch iterates over the model's trained
// context (llama_model_n_ctx_train) while its token buffer has the
// context's n_ctx entries, so the two must agree. llama_opt_init sets the
// model's n_ctx_train to the value it is given; NewTrainer gives it the
// training context's size, so any ContextSize works on any base model.
// The model keeps that value until it is closed (Info().TrainContext
// reports it); SaveFile writes the base file's own context length.
//
// Cancellation: ggml-opt's epoch callback cannot stop an epoch, and an
// aborted graph would leave half-updated weights, so a Trainer runs
// llama_opt_epoch on one window at a time, through a dataset of one
// datapoint, and checks ctx between windows. Progress is reported from Go
// after each window; no Go callback runs inside llama.cpp.

// TrainParams configures NewTrainer. The zero value trains 512-token
// windows (or the trained context, if shorter) with AdamW at a learning
// rate of 1e-4 and no weight decay.
type TrainParams struct {
	// ContextSize is the window: the tokens of one datapoint, a multiple
	// of 256 (llama.cpp pads a context to one, and its training loop reads
	// windows of the padded size). 0 means 512, or 256 for a model trained
	// on less. It may exceed the trained context.
	ContextSize int
	// UBatchSize is the tokens of one forward and backward pass; the
	// gradients of a window's ubatches are summed into one optimizer step.
	// It must divide ContextSize. 0 means min(ContextSize, 512).
	UBatchSize int
	// LearningRate is AdamW's alpha. 0 means 1e-4.
	LearningRate float64
	// WeightDecay is AdamW's decoupled weight decay, in [0, 1]. 0 means none.
	WeightDecay float64
	// Threads is the number of threads. 0 means DefaultThreads.
	Threads int
}

// Trainer trains a model in place with llama.cpp's optimizer. It owns a
// context made for training (F32 KV cache, no flash attention), the
// optimizer state and a one-window dataset. It is not safe for concurrent
// use, except that Close may be called from another goroutine: it waits for
// the window being trained.
type Trainer struct {
	mu     sync.Mutex
	model  *Model
	ctx    *Context
	n      int
	pars   *C.struct_ggml_opt_optimizer_params // C memory: ggml-opt reads it at every step
	ds     C.ggml_opt_dataset_t
	res    C.ggml_opt_result_t
	closed bool
}

// NewTrainer prepares m for training its output head. m must have been
// loaded with NoMmap (the optimizer writes the weights in place; a mapped
// file is read-only), have its own output.weight (llama.cpp does not train
// token_embd.weight, which a tied output is) and its head must be F32:
// ggml-opt trains F32 tensors only. The blocks may be of any type.
func NewTrainer(m *Model, p TrainParams) (*Trainer, error) {
	const op = "new trainer"
	cp, err := trainParams(m, p)
	if err != nil {
		return nil, newError(op, m.path, err)
	}
	if err := trainable(m); err != nil {
		return nil, newError(op, m.path, err)
	}
	c, err := NewContext(m, cp)
	if err != nil {
		return nil, err
	}
	t := &Trainer{model: m, ctx: c, n: cp.ContextSize}
	if c.Size() != t.n || c.BatchSize() != t.n {
		t.Close()
		return nil, newError(op, m.path, detail(ErrInvalidArgument, "llama.cpp made a context of %d tokens and batches of %d for windows of %d", c.Size(), c.BatchSize(), t.n))
	}
	if err := t.init(p); err != nil {
		t.Close()
		return nil, newError(op, m.path, err)
	}
	return t, nil
}

// ctxPad is the multiple llama_context pads n_ctx to.
const ctxPad = 256

// trainParams checks p and returns the training context's parameters.
func trainParams(m *Model, p TrainParams) (ContextParams, error) {
	info, err := m.Info()
	if err != nil {
		return ContextParams{}, err
	}
	n := p.ContextSize
	if n == 0 {
		n = 512
		if info.TrainContext < n {
			n = ctxPad
		}
	}
	ub := cmpOr(p.UBatchSize, min(n, 512))
	switch {
	case n < ctxPad || n > 1<<20 || n%ctxPad != 0:
		// llama.cpp pads a context to a multiple of 256 cells, and
		// llama_opt_epoch reads a datapoint of the padded size.
		return ContextParams{}, detail(ErrInvalidArgument, "context size %d is not a multiple of %d in %d..%d", n, ctxPad, ctxPad, 1<<20)
	case ub < 1 || n%ub != 0:
		return ContextParams{}, detail(ErrInvalidArgument, "ubatch size %d does not divide the context size %d", ub, n)
	case p.LearningRate < 0 || math.IsNaN(p.LearningRate) || math.IsInf(p.LearningRate, 0):
		return ContextParams{}, detail(ErrInvalidArgument, "learning rate %v is not a positive number", p.LearningRate)
	case !(p.WeightDecay >= 0 && p.WeightDecay <= 1):
		return ContextParams{}, detail(ErrInvalidArgument, "weight decay %v is outside [0, 1]", p.WeightDecay)
	}
	return ContextParams{ContextSize: n, AllowBeyondTrained: true, BatchSize: n, UBatchSize: ub,
		Threads: p.Threads, FlashAttention: "off", CacheTypeK: "f32", CacheTypeV: "f32"}, nil
}

// headTensors are the tensors a Trainer trains (see loop_train_filter in
// bridge.cpp).
var headTensors = []string{"output.weight", "output.bias", "output_norm.weight", "output_norm.bias"}

// trainable refuses a model whose head the optimizer cannot update: mapped
// weights are read-only, and ggml-opt updates F32 tensors only
// (llama_set_param skips any other type, leaving nothing to train).
func trainable(m *Model) error {
	if m.mmap {
		return detail(ErrInvalidArgument, "the weights are mapped read-only; load the model with NoMmap to train it")
	}
	cpath := C.CString(m.path)
	defer C.free(unsafe.Pointer(cpath))
	g := C.loop_gguf_open(cpath)
	if g == nil {
		return detail(ErrNotGGUF, "cannot read the tensor types of %s", m.path)
	}
	defer C.gguf_free(g)
	types := map[string]C.enum_ggml_type{}
	for i := range int64(C.gguf_get_n_tensors(g)) {
		types[C.GoString(C.gguf_get_tensor_name(g, C.int64_t(i)))] = C.gguf_get_tensor_type(g, C.int64_t(i))
	}
	if _, ok := types["output.weight"]; !ok {
		return detail(ErrInvalidArgument, "the output is tied to token_embd.weight, which llama.cpp does not train (llama_set_param skips it); only output_norm.weight would learn")
	}
	for _, name := range headTensors {
		if typ, ok := types[name]; ok && typ != C.GGML_TYPE_F32 {
			return detail(ErrInvalidArgument, "tensor %s is %s: llama.cpp's optimizer trains F32 tensors only (convert the base model to F32)",
				name, C.GoString(C.ggml_type_name(typ)))
		}
	}
	return nil
}

// init allocates the optimizer parameters, the dataset and the result,
// then runs llama_opt_init.
func (t *Trainer) init(p TrainParams) error {
	t.pars = (*C.struct_ggml_opt_optimizer_params)(C.calloc(1, C.size_t(unsafe.Sizeof(C.struct_ggml_opt_optimizer_params{}))))
	if t.pars == nil {
		return errors.New("out of memory for the optimizer parameters")
	}
	*t.pars = C.ggml_opt_get_default_optimizer_params(nil)
	lr := p.LearningRate
	if lr == 0 {
		lr = 1e-4
	}
	t.pars.adamw.alpha = C.float(lr)
	t.pars.adamw.wd = C.float(p.WeightDecay)
	t.pars.sgd.alpha = C.float(lr)
	if t.pars.adamw.alpha <= 0 { // a rate below float32's range
		return detail(ErrInvalidArgument, "learning rate %v rounds to 0 in float32", lr)
	}
	t.ds = C.ggml_opt_dataset_init(C.GGML_TYPE_I32, C.GGML_TYPE_I32, C.int64_t(t.n), C.int64_t(t.n), 1, 1)
	t.res = C.ggml_opt_result_init()
	if t.ds == nil || t.res == nil {
		return errors.New("out of memory for the dataset")
	}
	// llama_opt_epoch computes its graphs on the CPU backend as the last
	// llama_decode left it: without one, with ggml's default 4 threads
	// and no thread pool, which on a busy machine is ten times slower.
	// One token sets the context's threads and pool.
	if _, err := t.ctx.DecodeTokens(context.Background(), 0, 0, []Token{0}, false); err != nil {
		return err
	}
	if err := t.ctx.lock("new trainer"); err != nil {
		return err
	}
	defer t.ctx.mu.Unlock()
	var errbuf [256]C.char
	errs := captureErrors()
	ok := C.loop_opt_init(t.ctx.c, t.model.m, C.uint32_t(t.n), t.pars, &errbuf[0], C.size_t(len(errbuf)))
	logged := errs.stop()
	if !ok {
		return fmt.Errorf("llama_opt_init: %s%s", C.GoString(&errbuf[0]), logged)
	}
	return nil
}

// ContextSize returns the window: the tokens of one datapoint. A window
// passed to Train or Eval has one more token, the last label.
func (t *Trainer) ContextSize() int { return t.n }

// Train runs one optimizer step on window, which holds ContextSize()+1
// tokens: the inputs are window[:n] and the labels, the tokens to predict,
// window[1:]. It returns the window's mean cross-entropy loss before the
// step.
func (t *Trainer) Train(ctx context.Context, window []Token) (float64, error) {
	return t.run(ctx, "train", window, true)
}

// Eval returns the loss of window without changing the weights.
func (t *Trainer) Eval(ctx context.Context, window []Token) (float64, error) {
	return t.run(ctx, "eval", window, false)
}

func (t *Trainer) run(ctx context.Context, op string, window []Token, train bool) (float64, error) {
	if len(window) != t.n+1 {
		return 0, newError(op, "", detail(ErrInvalidArgument, "window of %d tokens, want %d (the context size %d and one label)", len(window), t.n+1, t.n))
	}
	if err := t.model.checkTokens(window); err != nil {
		return 0, newError(op, "", err)
	}
	if err := ctx.Err(); err != nil {
		return 0, newError(op, "", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return 0, newError(op, "", ErrClosed)
	}
	if err := t.ctx.lock(op); err != nil {
		return 0, err
	}
	defer t.ctx.mu.Unlock()
	C.ggml_opt_result_reset(t.res)
	var errbuf [256]C.char
	errs := captureErrors()
	ok := C.loop_opt_window(t.ctx.c, t.ds, t.res, (*C.llama_token)(unsafe.Pointer(&window[0])),
		(*C.llama_token)(unsafe.Pointer(&window[1])), C.int32_t(t.n), C.bool(train), &errbuf[0], C.size_t(len(errbuf)))
	logged := errs.stop()
	if !ok {
		return 0, newError(op, "", fmt.Errorf("llama.cpp: %s", C.GoString(&errbuf[0])))
	}
	var ndata C.int64_t
	C.ggml_opt_result_ndata(t.res, &ndata)
	if ndata == 0 { // llama.cpp logged why it did not run the window
		if logged == "" {
			logged = "no ubatch was evaluated"
		}
		return 0, newError(op, "", errors.New(logged))
	}
	var loss, unc C.double
	C.ggml_opt_result_loss(t.res, &loss, &unc)
	return float64(loss), nil
}

// Close frees the training context and the optimizer state. The model
// keeps the trained weights. Calling Close again does nothing.
func (t *Trainer) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.closed = true
	t.ctx.Close() // frees ggml-opt's context, which reads t.pars
	if t.ds != nil {
		C.ggml_opt_dataset_free(t.ds)
		t.ds = nil
	}
	if t.res != nil {
		C.ggml_opt_result_free(t.res)
		t.res = nil
	}
	C.free(unsafe.Pointer(t.pars))
	t.pars = nil
	return nil
}
