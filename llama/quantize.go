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
	"path/filepath"
	"sort"
	"unsafe"
)

// quantTypes are the llama_ftype values Quantize writes, by the names
// llama-quantize takes.
var quantTypes = map[string]C.enum_llama_ftype{
	"f32": C.LLAMA_FTYPE_ALL_F32, "f16": C.LLAMA_FTYPE_MOSTLY_F16, "bf16": C.LLAMA_FTYPE_MOSTLY_BF16,
	"q8_0": C.LLAMA_FTYPE_MOSTLY_Q8_0, "q4_0": C.LLAMA_FTYPE_MOSTLY_Q4_0, "q4_1": C.LLAMA_FTYPE_MOSTLY_Q4_1,
	"q5_0": C.LLAMA_FTYPE_MOSTLY_Q5_0, "q5_1": C.LLAMA_FTYPE_MOSTLY_Q5_1, "q2_k": C.LLAMA_FTYPE_MOSTLY_Q2_K,
	"q3_k_m": C.LLAMA_FTYPE_MOSTLY_Q3_K_M, "q4_k_m": C.LLAMA_FTYPE_MOSTLY_Q4_K_M, "q5_k_m": C.LLAMA_FTYPE_MOSTLY_Q5_K_M,
	"q6_k": C.LLAMA_FTYPE_MOSTLY_Q6_K,
}

// QuantTypes lists the names Quantize takes.
func QuantTypes() []string {
	names := make([]string, 0, len(quantTypes))
	for n := range quantTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Quantize writes the model at in to out with its weights in typ (one of
// QuantTypes), as llama-quantize does; threads 0 means all CPUs. The
// file is checked as LoadModel checks it before llama.cpp reads it, and
// out is written through a temporary file, so a failure leaves no half
// file behind.
func Quantize(in, out, typ string, threads int) error {
	const op = "quantize"
	initBackend()
	ft, ok := quantTypes[typ]
	if !ok {
		return newError(op, in, fmt.Errorf("type %q: want one of %v", typ, QuantTypes()))
	}
	info, err := checkGGUF(in)
	if err != nil {
		return pathErr(op, in, err)
	}
	if err := checkMeta(info.meta); err != nil {
		return newError(op, in, err)
	}
	if threads < 0 || threads > MaxThreads {
		return newError(op, in, fmt.Errorf("%d threads: want 0 (all) to %d", threads, MaxThreads))
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".quantize-*.gguf")
	if err != nil {
		return newError(op, out, err)
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	p := C.llama_model_quantize_default_params()
	p.nthread = C.int32_t(threads)
	p.ftype = ft
	cin, cout := C.CString(in), C.CString(tmp.Name())
	defer C.free(unsafe.Pointer(cin))
	defer C.free(unsafe.Pointer(cout))
	errs := captureErrors()
	rc := C.llama_model_quantize(cin, cout, &p)
	logged := errs.stop()
	if rc != 0 {
		if logged == "" {
			logged = "llama.cpp could not quantize it"
		}
		return newError(op, in, errors.New(logged))
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return newError(op, out, err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return newError(op, out, err)
	}
	return nil
}
