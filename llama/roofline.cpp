// A measured matrix multiply for `loop bench --roofline`: one F32 ggml
// mul_mat on the CPU backend, the peak the model's own kernels reach.
#include <chrono>
#include "ggml.h"
#include "ggml-cpu.h"

extern "C" double loop_matmul_gflops(int n, int threads, int reps) {
    try {
        if (n <= 0 || n > 8192 || threads <= 0 || reps <= 0) return -1;
        size_t mem = 3 * (size_t)n * n * sizeof(float) + 4 * ggml_tensor_overhead() + ggml_graph_overhead() + (1 << 20);
        struct ggml_init_params p = {mem, nullptr, false};
        struct ggml_context * ctx = ggml_init(p);
        if (!ctx) return -1;
        struct ggml_tensor * a = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, n);
        struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, n);
        float * da = (float *) a->data;
        float * db = (float *) b->data;
        for (size_t i = 0; i < (size_t)n * n; i++) { da[i] = (float)(i % 7) * 0.01f; db[i] = (float)(i % 5) * 0.02f; }
        struct ggml_tensor * c = ggml_mul_mat(ctx, a, b);
        struct ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, c);
        if (ggml_graph_compute_with_ctx(ctx, gf, threads) != GGML_STATUS_SUCCESS) { ggml_free(ctx); return -1; }
        auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < reps; r++) {
            if (ggml_graph_compute_with_ctx(ctx, gf, threads) != GGML_STATUS_SUCCESS) { ggml_free(ctx); return -1; }
        }
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        ggml_free(ctx);
        return 2.0 * n * (double)n * n * reps / s / 1e9;
    } catch (...) {
        return -1;
    }
}
