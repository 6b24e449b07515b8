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
	"runtime"
	"runtime/cgo"
	"strings"
	"sync"
	"unsafe"
)

// ModelParams configures LoadModel. The zero value loads all weights on the
// CPU through mmap.
type ModelParams struct {
	// GPULayers is the number of layers to offload to a GPU (-ngl). Zero
	// keeps the model on the CPU; a negative value offloads every layer.
	GPULayers int
	// NoMmap reads the weights into memory instead of mapping the file.
	NoMmap bool
	// Mlock locks the weights in RAM so the OS cannot page them out.
	Mlock bool
	// VocabOnly loads only the vocabulary and metadata, no weights.
	VocabOnly bool
	// Progress, when set, is called with the load progress from 0 to 1.
	Progress func(progress float32)
}

// Model is a loaded GGUF model and its vocabulary. Its methods are safe for
// concurrent use. Close releases it together with every Context and Sampler
// created from it.
type Model struct {
	mu       sync.RWMutex
	m        *C.struct_llama_model
	vocab    *C.struct_llama_vocab
	path     string
	meta     []MetaKV
	nVocab   int
	noVocab  bool // no tokenizer: llama.cpp asserts on any use of one
	mmap     bool // the weights are a read-only mapping of the file
	noWeight bool // loaded with VocabOnly
	cpuOnly  bool // every layer runs on the CPU
	children map[closer]struct{}
	closing  bool            // Close has begun: nothing new may be adopted
	leak     runtime.Cleanup // reports a Model dropped without Close

	// dry are DRY samplers by their settings, never used to sample:
	// NewDRY clones them, because llama_sampler_init_dry scans the whole
	// vocabulary for its sequence breakers, and an agent builds a chain on
	// every request. dryMu guards them and the grammar below.
	dryMu sync.Mutex
	dry   map[string]*C.struct_llama_sampler
	// grammar is the last grammar sampler made, never used to sample,
	// and what it was made from: a new grammar with the same text and
	// triggers is its clone. An agent sends the same call grammar step
	// after step, and llama.cpp parses a large one (an edit narrowed to a
	// file's text, agent/paths) in tens of milliseconds; a clone copies
	// its rules.
	grammarKey   string
	grammarProto *C.struct_llama_sampler
}

// closer is a handle that depends on a Model and must go before it.
type closer interface{ close() }

// loadSem lets one load run at a time: llama.cpp's loader keeps global
// state (the backend registry, its log). Waiting for it honours the
// caller's context.
var loadSem = make(chan struct{}, 1)

// loadProgress is the state behind the progress callback's cgo.Handle.
type loadProgress struct {
	ctx      context.Context
	fn       func(float32)
	panicked any // a panic of fn, raised again once llama.cpp has returned
}

//export loopGoProgress
func loopGoProgress(p C.float, h C.uintptr_t) C.bool {
	lp := cgo.Handle(h).Value().(*loadProgress)
	if lp.panicked != nil {
		return false
	}
	if lp.fn != nil {
		// A panic must not unwind through llama.cpp's C++ frames: keep it,
		// stop the load, and raise it again in LoadModel.
		func() {
			defer func() {
				if r := recover(); r != nil {
					lp.panicked = r
				}
			}()
			lp.fn(float32(p))
		}()
	}
	return C.bool(lp.panicked == nil && lp.ctx.Err() == nil)
}

// LoadModel loads the GGUF file at path. It checks the file before llama.cpp
// sees it, so a missing file, a directory, a non-GGUF or a truncated file each
// give an error that names the file and the problem. Cancelling ctx aborts the
// load.
func LoadModel(ctx context.Context, path string, p ModelParams) (*Model, error) {
	const op = "load model"
	initBackend()
	if err := ctx.Err(); err != nil {
		return nil, newError(op, path, err)
	}
	info, err := checkGGUF(path)
	if err != nil {
		return nil, pathErr(op, path, err)
	}
	if err := checkMeta(info.meta); err != nil {
		return nil, newError(op, path, err)
	}
	mp := p.cParams()
	lp := &loadProgress{ctx: ctx, fn: p.Progress}
	h := cgo.NewHandle(lp)
	defer h.Delete()
	C.loop_model_params_set_progress(&mp, C.uintptr_t(h))

	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	m, logged, err := loadFile(ctx, cpath, mp)
	if err != nil {
		return nil, newError(op, path, err)
	}
	if lp.panicked != nil {
		if m != nil {
			C.llama_model_free(m)
		}
		panic(lp.panicked)
	}
	if m == nil {
		if err := ctx.Err(); err != nil {
			return nil, newError(op, path, err)
		}
		if logged == "" {
			logged = "llama.cpp could not load it"
		}
		return nil, newError(op, path, errors.New(logged))
	}
	model := &Model{
		m:        m,
		vocab:    C.llama_model_get_vocab(m),
		path:     path,
		meta:     info.meta,
		mmap:     !p.NoMmap && !p.VocabOnly,
		noWeight: p.VocabOnly,
		cpuOnly:  p.GPULayers == 0 || !hasGPU(),
		children: map[closer]struct{}{},
	}
	model.nVocab = int(C.llama_vocab_n_tokens(model.vocab))
	model.noVocab = C.llama_vocab_type(model.vocab) == C.LLAMA_VOCAB_TYPE_NONE
	model.leak = runtime.AddCleanup(model, reportLeak, "model "+path)
	return model, nil
}

// cParams are llama.cpp's model parameters for p, without the progress
// callback.
func (p ModelParams) cParams() C.struct_llama_model_params {
	mp := C.llama_model_default_params()
	mp.n_gpu_layers = C.int32_t(min(p.GPULayers, 999))
	if p.GPULayers < 0 {
		mp.n_gpu_layers = 999
	}
	mp.use_mmap = C.bool(!p.NoMmap)
	mp.use_mlock = C.bool(p.Mlock)
	mp.vocab_only = C.bool(p.VocabOnly)
	return mp
}

// loadFile runs llama_model_load_from_file once it is this call's turn,
// and returns what llama.cpp logged as errors meanwhile.
func loadFile(ctx context.Context, cpath *C.char, mp C.struct_llama_model_params) (*C.struct_llama_model, string, error) {
	select {
	case loadSem <- struct{}{}:
	case <-ctx.Done():
		return nil, "", ctx.Err()
	}
	defer func() { <-loadSem }()
	errs := captureErrors()
	m := C.llama_model_load_from_file(cpath, mp)
	return m, errs.stop(), nil
}

// reportLeak logs a handle that was garbage collected without Close. It does
// not free anything: the C memory stays allocated, as the caller asked.
func reportLeak(what string) {
	logState.Lock()
	l := logState.logger
	logState.Unlock()
	l.Warn("llama: handle was not closed before it became unreachable", "handle", what)
}

// Close frees the model after closing every Context and Sampler made from
// it. Calling Close again does nothing.
//
// The model's lock is not held while the children close: a child's close
// takes the child's own lock, and a call such as Sampler.Add holds that
// lock while it asks the model to adopt a chain, so holding both here
// would deadlock.
func (m *Model) Close() error {
	m.mu.Lock()
	if m.m == nil || m.closing {
		m.mu.Unlock()
		return nil
	}
	m.closing = true
	children := m.children
	m.children = nil
	m.mu.Unlock()
	for c := range children {
		c.close()
	}
	m.mu.Lock() // waits for the calls that are using the model
	defer m.mu.Unlock()
	m.leak.Stop()
	for k, s := range m.dry {
		C.llama_sampler_free(s)
		delete(m.dry, k)
	}
	if m.grammarProto != nil {
		C.llama_sampler_free(m.grammarProto)
		m.grammarProto, m.grammarKey = nil, ""
	}
	C.loop_grammar_forget(m.vocab)
	C.llama_model_free(m.m)
	m.m = nil
	m.vocab = nil
	return nil
}

// adopt registers a dependent handle; it fails when the model is closing.
func (m *Model) adopt(c closer) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || m.closing {
		return ErrClosed
	}
	m.children[c] = struct{}{}
	return nil
}

// release forgets a dependent handle that closed itself.
func (m *Model) release(c closer) {
	m.mu.Lock()
	if m.children != nil {
		delete(m.children, c)
	}
	m.mu.Unlock()
}

// use runs f with the model read-locked, or returns ErrClosed.
func (m *Model) use(op string, f func() error) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.m == nil {
		return newError(op, m.path, ErrClosed)
	}
	return f()
}

// Path returns the file the model was loaded from.
func (m *Model) Path() string { return m.path }

// Metadata returns every GGUF key and value in file order. Long arrays keep
// only their first elements; MetaValue.Len has the full length.
func (m *Model) Metadata() []MetaKV { return m.meta }

// Meta returns the value of one key and whether it exists.
func (m *Model) Meta(key string) (MetaValue, bool) {
	for _, kv := range m.meta {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return MetaValue{}, false
}

// Info is a summary of a loaded model.
type Info struct {
	Arch         string // general.architecture
	Description  string // llama_model_desc, e.g. "qwen2 ?B F32"
	Params       uint64 // number of parameters
	SizeBytes    uint64 // bytes of all tensors
	TrainContext int    // trained context length
	Embd         int    // embedding length
	Layers       int
	Heads        int
	HeadsKV      int
	HeadDimK     int // key head size (n_embd_head_k)
	HeadDimV     int // value head size
	VocabSize    int
	Recurrent    bool // recurrent (Mamba, RWKV) or hybrid memory
	SWA          int  // sliding-window size, 0 when none
}

// Info returns the model's summary.
func (m *Model) Info() (Info, error) {
	var in Info
	err := m.use("model info", func() error {
		buf := make([]byte, 256)
		n := C.llama_model_desc(m.m, (*C.char)(unsafe.Pointer(&buf[0])), C.size_t(len(buf)))
		if n > 0 {
			in.Description = string(buf[:min(int(n), len(buf)-1)])
		}
		in.Params = uint64(C.llama_model_n_params(m.m))
		in.SizeBytes = uint64(C.llama_model_size(m.m))
		in.TrainContext = int(C.llama_model_n_ctx_train(m.m))
		in.Embd = int(C.llama_model_n_embd(m.m))
		in.Layers = int(C.llama_model_n_layer(m.m))
		in.Heads = int(C.llama_model_n_head(m.m))
		in.HeadsKV = int(C.llama_model_n_head_kv(m.m))
		in.VocabSize = m.nVocab
		in.Recurrent = bool(C.llama_model_is_recurrent(m.m)) || bool(C.llama_model_is_hybrid(m.m))
		in.SWA = int(C.llama_model_n_swa(m.m))
		return nil
	})
	if err != nil {
		return in, err
	}
	in.Arch = m.metaString("general.architecture")
	in.HeadDimK = m.metaInt(in.Arch+".attention.key_length", in.Embd/max(in.Heads, 1))
	in.HeadDimV = m.metaInt(in.Arch+".attention.value_length", in.HeadDimK)
	return in, nil
}

func (m *Model) metaString(key string) string {
	v, _ := m.Meta(key)
	s, _ := v.Value.(string)
	return s
}

func (m *Model) metaInt(key string, def int) int {
	v, ok := m.Meta(key)
	if !ok {
		return def
	}
	switch x := v.Value.(type) {
	case uint64:
		return int(x)
	case int64:
		return int(x)
	}
	return def
}

// ChatTemplate returns the model's chat template: the default one when name
// is "", or a named one such as "tool_use" (tokenizer.chat_template.tool_use).
// The boolean is false when the model has no such template.
func (m *Model) ChatTemplate(name string) (string, bool) {
	var out string
	var ok bool
	m.use("chat template", func() error {
		var cname *C.char
		if name != "" {
			cname = C.CString(name)
			defer C.free(unsafe.Pointer(cname))
		}
		if t := C.llama_model_chat_template(m.m, cname); t != nil {
			out, ok = C.GoString(t), true
		}
		return nil
	})
	return out, ok
}

// ChatTemplateNames lists the named chat templates besides the default one
// (tokenizer.chat_templates, or the tokenizer.chat_template.NAME keys).
func (m *Model) ChatTemplateNames() []string {
	var names []string
	for _, kv := range m.meta {
		if name, ok := strings.CutPrefix(kv.Key, "tokenizer.chat_template."); ok {
			names = append(names, name)
		}
	}
	return names
}

// String describes the model for logs.
func (m *Model) String() string { return fmt.Sprintf("llama.Model(%s)", m.path) }
