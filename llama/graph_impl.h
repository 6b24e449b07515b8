// graph_impl.h: the training graph's state (struct loop_gt of graph.h),
// shared by graph.cpp, which builds and runs the graph, and
// graph_state.cpp, which saves and restores the weights and the optimizer.
#ifndef LOOP_GRAPH_IMPL_H
#define LOOP_GRAPH_IMPL_H

#include <string>
#include <vector>

#include "ggml-backend.h"
#include "ggml-opt.h"
#include "ggml.h"
#include "graph.h"

// layer is one transformer block's weights; a bias is null when the file
// has none.
struct layer {
    ggml_tensor *attn_norm, *wq, *bq, *wk, *bk, *wv, *bv, *wo, *bo;
    ggml_tensor *ffn_norm, *gate, *up, *down;
};

// host_kv is a prefix's keys and values on the host (prefix_kv).
struct host_kv {
    std::vector<std::vector<float>> k, v;
};

struct loop_gt {
    loop_gt_hparams hp{};
    std::string path;
    ggml_backend_t backend = nullptr;
    ggml_context *wctx = nullptr;           // the weights' metadata
    ggml_backend_buffer_t wbuf = nullptr;   // the weights' data
    std::vector<ggml_tensor *> weights;     // every tensor of the file, in file order
    ggml_tensor *tok_embd = nullptr, *out_norm = nullptr, *output = nullptr;
    std::vector<layer> layers;
    ggml_backend_sched_t sched = nullptr;
    // AdamW state: the moments of each weight and the step's parameters.
    ggml_context *octx = nullptr;
    ggml_backend_buffer_t obuf = nullptr;
    std::vector<ggml_tensor *> m, v;
    ggml_tensor *adamw = nullptr;
    ggml_opt_optimizer_params pars{};
    int64_t iter = 0;
    // The last prefix's keys and values, its tokens and the step whose
    // weights computed them (prefix_iter; -1: none). A window with the
    // same prefix reuses them while fewer than prefix_every steps have
    // changed the weights since (loop_gt_set_prefix_every).
    host_kv prefix_kv;
    std::vector<int32_t> prefix_tokens;
    int64_t prefix_iter = -1;
    int32_t prefix_every = 1;
};

#endif
