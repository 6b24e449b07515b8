package llama

/*
#include <stdbool.h>
bool loop_matmul_type_ok(int type, int n);
double loop_matmul_gflops(int n, int type, int threads, int reps);
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
)

// MatmulGFLOPS measures an n×n by n×n matrix multiply with ggml's CPU
// kernels on threads threads, reps times after a warm-up: the compute
// peak that prefill can approach. The weights are of weightType, a ggml
// type number as GGUF tensors record it (0 F32, 1 F16, 8 Q8_0, ...; types
// that need an importance matrix are refused), the activations F32, as in
// a model's layers. n is at most 8192.
func MatmulGFLOPS(n, weightType, threads, reps int) (float64, error) {
	initBackend()
	if n < 1 || n > 8192 || threads < 1 || threads > MaxThreads || reps < 1 {
		return 0, newError("matmul", "", fmt.Errorf("n %d, %d threads, %d repetitions: out of range", n, threads, reps))
	}
	if !bool(C.loop_matmul_type_ok(C.int(weightType), C.int(n))) {
		return 0, newError("matmul", "", detail(ErrInvalidArgument, "ggml type %d cannot be timed here (unknown, needs an importance matrix, or rows of %d are not whole blocks)", weightType, n))
	}
	g := float64(C.loop_matmul_gflops(C.int(n), C.int(weightType), C.int(threads), C.int(reps)))
	if g <= 0 {
		return 0, newError("matmul", "", errors.New("ggml could not compute the product"))
	}
	return g, nil
}

// CopyBandwidth measures memory bandwidth in GB/s (bytes read plus bytes
// written) by copying a buffer of size bytes with threads goroutines,
// reps times after a warm-up: the bound of decoding, which reads every
// weight once per token.
func CopyBandwidth(size, threads, reps int) (float64, error) {
	if size < 1<<20 || threads < 1 || reps < 1 {
		return 0, newError("copy bandwidth", "", fmt.Errorf("%d bytes, %d threads, %d repetitions: out of range", size, threads, reps))
	}
	src, dst := make([]byte, size), make([]byte, size)
	for i := range src {
		src[i] = byte(i)
	}
	copyAll := func() {
		var wg sync.WaitGroup
		chunk := (size + threads - 1) / threads
		for t := range threads {
			lo, hi := t*chunk, min((t+1)*chunk, size)
			wg.Go(func() {
				runtime.LockOSThread()
				copy(dst[lo:hi], src[lo:hi])
			})
		}
		wg.Wait()
	}
	copyAll()
	start := time.Now()
	for range reps {
		copyAll()
	}
	return 2 * float64(size) * float64(reps) / time.Since(start).Seconds() / 1e9, nil
}
