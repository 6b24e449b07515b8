package llama

/*
#include <stdlib.h>
#include "graph.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"
)

// A Trainer's state is its weights and its optimizer's state. To stop a
// run and go on later exactly as if it had not stopped, save both,
//
//	err := tr.SaveFile(ctx, "ckpt/model.gguf")      // the weights, as a model
//	err = tr.SaveOptimizer(ctx, "ckpt/adamw.gguf") // AdamW's moments and step
//
// and restore them into a new Trainer made from the same base with the
// same TrainParams, weights first (LoadWeights forgets the cached prefix,
// which LoadOptimizer restores):
//
//	tr, err := llama.NewTrainer(ctx, "base.gguf", params)
//	err = tr.LoadWeights(ctx, "ckpt/model.gguf")
//	err = tr.LoadOptimizer(ctx, "ckpt/adamw.gguf")
//
// The next steps are then the same, bit for bit, as those of the Trainer
// that saved them, given the same windows, learning rates and threads.
// The optimizer's file is GGUF: AdamW's first and second moments of every
// weight, its step count (which sets the bias corrections), its
// parameters, and the prefix keys and values that the next windows may
// reuse (TrainParams.PrefixEvery); graph_state.cpp lists its keys. The
// learning-rate schedule and the order of the windows are the caller's.

// SaveOptimizer writes the optimizer's state to path, a GGUF file, as
// SaveFile writes the weights: into a temporary file next to path, synced
// and read back before it is renamed over path. A Trainer that has not
// trained yet saves the state of step 0. ctx is checked before the write
// starts.
func (t *Trainer) SaveOptimizer(ctx context.Context, path string) error {
	const op = "save optimizer"
	if err := ctx.Err(); err != nil {
		return newError(op, path, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.g == nil {
		return newError(op, path, ErrClosed)
	}
	var errbuf [256]C.char
	if err := t.initOpt(&errbuf); err != nil {
		return newError(op, path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return pathErr(op, path, err)
	}
	tmp := f.Name()
	done := false
	defer func() {
		if !done {
			os.Remove(tmp)
		}
	}()
	if err := f.Close(); err != nil {
		return pathErr(op, path, err)
	}
	ctmp := C.CString(tmp)
	defer C.free(unsafe.Pointer(ctmp))
	errs := captureErrors()
	ok := C.loop_gt_write_opt(t.g, ctmp, &errbuf[0], C.size_t(len(errbuf)))
	logged := errs.stop()
	if !ok {
		return newError(op, path, fmt.Errorf("%s%s", C.GoString(&errbuf[0]), suffix(logged)))
	}
	if err := syncFile(tmp); err != nil {
		return pathErr(op, path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return pathErr(op, path, err)
	}
	done = true
	return nil
}

// LoadOptimizer replaces the optimizer's state with the one SaveOptimizer
// wrote to path. The file must be a state of a Trainer of the same base
// (the same weights' names and shapes) and of the same weight decay: one
// of another model or recipe is refused with ErrInvalidArgument, a
// truncated or non-GGUF file with ErrNotGGUF, a missing one with an error
// wrapping fs.ErrNotExist. A refused file leaves the Trainer as it was.
func (t *Trainer) LoadOptimizer(ctx context.Context, path string) error {
	return t.load(ctx, "load optimizer", path, true)
}

// LoadWeights replaces the weights with those of path, a GGUF file that
// SaveFile wrote from a Trainer of the same base: it must hold tensors of
// the same names, types and shapes, or it is refused as LoadOptimizer
// refuses a file. The prefix keys and values that the old weights
// computed are forgotten. The optimizer's state is left as it is.
func (t *Trainer) LoadWeights(ctx context.Context, path string) error {
	return t.load(ctx, "load weights", path, false)
}

func (t *Trainer) load(ctx context.Context, op, path string, opt bool) error {
	if err := ctx.Err(); err != nil {
		return newError(op, path, err)
	}
	if _, err := checkGGUF(path); err != nil {
		return pathErr(op, path, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.g == nil {
		return newError(op, path, ErrClosed)
	}
	var errbuf [256]C.char
	if opt {
		if err := t.initOpt(&errbuf); err != nil {
			return newError(op, path, err)
		}
	}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var code C.int32_t
	errs := captureErrors()
	var ok C.bool
	if opt {
		ok = C.loop_gt_read_opt(t.g, cpath, &code, &errbuf[0], C.size_t(len(errbuf)))
	} else {
		ok = C.loop_gt_read_weights(t.g, cpath, &code, &errbuf[0], C.size_t(len(errbuf)))
	}
	logged := errs.stop()
	if ok {
		return nil
	}
	msg := C.GoString(&errbuf[0])
	switch code {
	case C.LOOP_GT_NOT_GGUF:
		return newError(op, path, detail(ErrNotGGUF, "%s", msg))
	case C.LOOP_GT_INVALID:
		return newError(op, path, detail(ErrInvalidArgument, "%s", msg))
	}
	return newError(op, path, errors.New(msg+suffix(logged)))
}

// suffix is what llama.cpp logged during a failed call, to add to its
// error: "" or "; " and the messages.
func suffix(logged string) string {
	if logged == "" {
		return ""
	}
	return "; " + logged
}

// Steps returns the optimizer steps taken: the windows trained on, or
// those of the state LoadOptimizer restored. It returns 0 once the
// Trainer is closed.
func (t *Trainer) Steps() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.g == nil {
		return 0
	}
	return int(C.loop_gt_iter(t.g))
}

// Base returns the path of the GGUF file the Trainer was made from.
func (t *Trainer) Base() string { return t.path }
