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
	"io"
	"os"
	"path/filepath"
	"unsafe"
)

// SaveFile writes the trained weights to path as a GGUF file that is the
// base file with each tensor's data replaced: a copy of the base file, in
// which every tensor's bytes are overwritten at its data offset
// (gguf_get_data_offset + gguf_get_tensor_offset). The metadata (the chat
// template, the vocabulary, the context length) stays the base's, byte for
// byte. The copy is made in a temporary file next to path, synced, checked
// to read back as written, and only then renamed over path, so an
// interrupted save never leaves a broken file at path. ctx is checked
// before the write starts.
func (t *Trainer) SaveFile(ctx context.Context, path string) error {
	const op = "save model"
	if err := ctx.Err(); err != nil {
		return newError(op, path, err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.g == nil {
		return newError(op, path, ErrClosed)
	}
	tmp, err := copyToTemp(t.path, path)
	if err != nil {
		return pathErr(op, path, err)
	}
	done := false
	defer func() {
		if !done {
			os.Remove(tmp)
		}
	}()
	ctmp := C.CString(tmp)
	defer C.free(unsafe.Pointer(ctmp))
	var errbuf [256]C.char
	errs := captureErrors()
	ok := C.loop_gt_write(t.g, ctmp, &errbuf[0], C.size_t(len(errbuf)))
	logged := errs.stop()
	if !ok {
		return newError(op, path, fmt.Errorf("%s%s", C.GoString(&errbuf[0]), logged))
	}
	if err := syncFile(tmp); err != nil {
		return newError(op, path, err)
	}
	if _, err := checkGGUF(tmp); err != nil {
		return newError(op, path, fmt.Errorf("the written file does not read back: %w", err))
	}
	if err := os.Rename(tmp, path); err != nil {
		return pathErr(op, path, err)
	}
	done = true
	return nil
}

// copyToTemp copies base to a new temporary file in the directory of path
// and returns its name.
func copyToTemp(base, path string) (string, error) {
	in, err := os.Open(base)
	if err != nil {
		return "", err
	}
	defer in.Close()
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	_, err = io.Copy(f, in)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", errors.Join(errors.New("copy the base file"), err)
	}
	return f.Name(), nil
}

// syncFile makes a file readable by others and flushes it to disk.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
