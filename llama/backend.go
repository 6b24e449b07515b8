package llama

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

var backendOnce sync.Once

// initBackend runs llama_backend_init once per process.
func initBackend() {
	backendOnce.Do(func() { C.llama_backend_init() })
}

// SystemInfo returns llama_print_system_info: the CPU features compiled in
// (AVX2, AVX512, NEON, ...) and the backends that are registered.
func SystemInfo() string {
	initBackend()
	return strings.TrimSpace(C.GoString(C.llama_print_system_info()))
}

// Device describes a ggml backend device.
type Device struct {
	Name        string // "CPU", "CUDA0", ...
	Description string // e.g. the CPU or GPU model
	Type        string // "cpu", "gpu", "igpu" or "accel"
	FreeBytes   uint64 // free memory reported by the device
	TotalBytes  uint64 // total memory reported by the device
}

// Devices lists the registered ggml devices: the CPU, Metal on darwin/arm64,
// and whatever LoadBackends added.
func Devices() []Device {
	initBackend()
	n := int(C.ggml_backend_dev_count())
	out := make([]Device, 0, n)
	for i := range n {
		d := C.ggml_backend_dev_get(C.size_t(i))
		var free, total C.size_t
		C.ggml_backend_dev_memory(d, &free, &total)
		out = append(out, Device{
			Name:        C.GoString(C.ggml_backend_dev_name(d)),
			Description: C.GoString(C.ggml_backend_dev_description(d)),
			Type:        devType(C.ggml_backend_dev_type(d)),
			FreeBytes:   uint64(free),
			TotalBytes:  uint64(total),
		})
	}
	return out
}

// hasGPU reports whether a GPU device (discrete or integrated) is
// registered, so that layers can be offloaded.
func hasGPU() bool {
	for _, d := range Devices() {
		if d.Type == "gpu" || d.Type == "igpu" {
			return true
		}
	}
	return false
}

func devType(t C.enum_ggml_backend_dev_type) string {
	switch t {
	case C.GGML_BACKEND_DEVICE_TYPE_CPU:
		return "cpu"
	case C.GGML_BACKEND_DEVICE_TYPE_GPU:
		return "gpu"
	case C.GGML_BACKEND_DEVICE_TYPE_IGPU:
		return "igpu"
	}
	return "accel"
}

// LoadBackends loads the ggml backend libraries (libggml-cuda.so,
// libggml-vulkan.so, ...) found in dir with ggml_backend_load, and returns
// the names of the backends it registered. The CPU backend is compiled into
// the binary, so CPU and base libraries in dir are skipped. A missing dir is
// not an error: it loads nothing.
func LoadBackends(dir string) ([]string, error) {
	initBackend()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, newError("load backends", dir, err)
	}
	ext := ".so"
	switch runtime.GOOS {
	case "darwin":
		ext = ".dylib"
	case "windows":
		ext = ".dll"
	}
	var loaded []string
	var failed []string
	for _, e := range entries {
		name := e.Name()
		base := strings.TrimPrefix(name, "lib")
		if e.IsDir() || !strings.HasPrefix(base, "ggml-") || !strings.HasSuffix(name, ext) ||
			strings.HasPrefix(base, "ggml-base") || strings.HasPrefix(base, "ggml-cpu") {
			continue
		}
		path := filepath.Join(dir, name)
		cpath := C.CString(path)
		reg := C.ggml_backend_load(cpath)
		C.free(unsafe.Pointer(cpath))
		if reg == nil {
			failed = append(failed, name)
			continue
		}
		loaded = append(loaded, C.GoString(C.ggml_backend_reg_name(reg)))
	}
	if len(failed) > 0 {
		return loaded, newError("load backends", dir, fmt.Errorf("could not load %s (see the log for the loader's message)", strings.Join(failed, ", ")))
	}
	return loaded, nil
}
