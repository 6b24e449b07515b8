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
	"os"
	"path/filepath"
	"unsafe"
)

// SaveFile writes the model's weights, as they are in memory (trained by a
// Trainer, say), to path as a GGUF file with the metadata of the file the
// model was loaded from: its context length, tokenizer, chat templates and
// description stay as they were. (llama_model_save_to_file would write the
// context length a Trainer set and drop the chat template.) The file is
// written to a temporary file in path's directory and renamed over path
// only once it is complete and reads back as GGUF, so an interrupted save
// never leaves a broken file at path. ctx is checked before the write
// starts; the write itself is not interrupted. Do not save while a Trainer
// is training the model: the file could hold a half-updated step.
func (m *Model) SaveFile(ctx context.Context, path string) error {
	const op = "save model"
	if err := ctx.Err(); err != nil {
		return newError(op, path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return pathErr(op, path, err)
	}
	tmp := f.Name()
	f.Close()
	done := false
	defer func() {
		if !done {
			os.Remove(tmp)
		}
	}()
	err = m.use(op, func() error {
		if m.noWeight {
			return detail(ErrInvalidArgument, "the model was loaded with VocabOnly: it has no weights to save")
		}
		cbase, ctmp := C.CString(m.path), C.CString(tmp)
		defer C.free(unsafe.Pointer(cbase))
		defer C.free(unsafe.Pointer(ctmp))
		var errbuf [256]C.char
		errs := captureErrors()
		ok := C.loop_save_model(m.m, cbase, ctmp, &errbuf[0], C.size_t(len(errbuf)))
		logged := errs.stop()
		if !ok {
			if logged != "" {
				return fmt.Errorf("%s (%s)", C.GoString(&errbuf[0]), logged)
			}
			return errors.New(C.GoString(&errbuf[0]))
		}
		return nil
	})
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return err
		}
		return newError(op, path, err)
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
