// A measured matrix multiply for `loop bench --roofline`: one ggml mul_mat
// on the CPU backend, weights of the model's type by F32 activations, the
// peak the model's own kernels reach.
#include <chrono>
#include <cstdint>
#include <vector>
#include "ggml.h"
#include "ggml-cpu.h"

// loop_matmul_type_ok reports whether weights of type can be made here
// from F32 values: a current type whose rows of n values are whole blocks,
// quantized without an importance matrix.
extern "C" bool loop_matmul_type_ok(int type, int n) {
    if (type < 0 || type >= GGML_TYPE_COUNT) return false;
    enum ggml_type t = (enum ggml_type) type;
    int64_t blck = ggml_blck_size(t);
    if (blck <= 0 || ggml_type_size(t) == 0 || n % blck != 0) return false;
    return t == GGML_TYPE_F32 || !ggml_quantize_requires_imatrix(t);
}

extern "C" double loop_matmul_gflops(int n, int type, int threads, int reps) {
    try {
        if (n <= 0 || n > 8192 || threads <= 0 || reps <= 0 || !loop_matmul_type_ok(type, n)) return -1;
        enum ggml_type wt = (enum ggml_type) type;
        size_t mem = 3 * (size_t)n * n * sizeof(float) + ggml_row_size(wt, n) * n + 4 * ggml_tensor_overhead() + ggml_graph_overhead() + (1 << 20);
        struct ggml_init_params p = {mem, nullptr, false};
        struct ggml_context * ctx = ggml_init(p);
        if (!ctx) return -1;
        struct ggml_tensor * src = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, n);
        struct ggml_tensor * a = wt == GGML_TYPE_F32 ? src : ggml_new_tensor_2d(ctx, wt, n, n);
        struct ggml_tensor * b = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n, n);
        float * ds = (float *) src->data;
        float * db = (float *) b->data;
        for (size_t i = 0; i < (size_t)n * n; i++) { ds[i] = (float)(i % 7) * 0.01f; db[i] = (float)(i % 5) * 0.02f; }
        if (a != src) {
            ggml_quantize_init(wt);
            ggml_quantize_chunk(wt, ds, a->data, 0, n, n, nullptr);
        }
        struct ggml_tensor * c = ggml_mul_mat(ctx, a, b);
        struct ggml_cgraph * gf = ggml_new_graph(ctx);
        ggml_build_forward_expand(gf, c);
        // One plan and one work buffer for every run: ggml_graph_compute_with_ctx
        // would take a new work buffer from ctx on each call and run out.
        struct ggml_cplan plan = ggml_graph_plan(gf, threads, nullptr);
        std::vector<uint8_t> work(plan.work_size);
        plan.work_data = work.data();
        if (ggml_graph_compute(gf, &plan) != GGML_STATUS_SUCCESS) { ggml_free(ctx); return -1; }
        auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < reps; r++) {
            if (ggml_graph_compute(gf, &plan) != GGML_STATUS_SUCCESS) { ggml_free(ctx); return -1; }
        }
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        ggml_free(ctx);
        return 2.0 * n * (double)n * n * reps / s / 1e9;
    } catch (...) {
        return -1;
    }
}
