// graph.cpp: loop's own training graph of the qwen2 architecture (graph.h).
//
// llama.cpp's graphs write K and V into the KV cache with ggml_set_rows,
// which has no backward pass, so llama_opt_epoch cannot train anything that
// feeds attention. This graph is the same computation without a cache: K and
// V are used where they are made, every op has a backward pass in
// ggml_compute_backward, and ggml-opt trains every weight.
#include "graph.h"
#include "graph_impl.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml-cpu.h"
#include "ggml-opt.h"
#include "ggml.h"
#include "gguf.h"

namespace {

void set_err(char *err, size_t n, const std::string &msg) {
    if (n == 0) return;
    size_t k = msg.size() < n - 1 ? msg.size() : n - 1;
    memcpy(err, msg.data(), k);
    err[k] = 0;
}

// meta_int reads an integer key of any integer type; def when absent.
bool meta_int(gguf_context *g, const std::string &key, int64_t def, int64_t *v, std::string *why) {
    int64_t id = gguf_find_key(g, key.c_str());
    if (id < 0) {
        if (def < 0) {
            *why = "no " + key + " in the metadata";
            return false;
        }
        *v = def;
        return true;
    }
    switch (gguf_get_kv_type(g, id)) {
    case GGUF_TYPE_UINT32: *v = gguf_get_val_u32(g, id); return true;
    case GGUF_TYPE_INT32: *v = gguf_get_val_i32(g, id); return true;
    case GGUF_TYPE_UINT64: *v = (int64_t) gguf_get_val_u64(g, id); return true;
    case GGUF_TYPE_INT64: *v = gguf_get_val_i64(g, id); return true;
    default: *why = key + " is not an integer"; return false;
    }
}

bool meta_float(gguf_context *g, const std::string &key, float def, float *v, std::string *why) {
    int64_t id = gguf_find_key(g, key.c_str());
    if (id < 0) {
        if (std::isnan(def)) {
            *why = "no " + key + " in the metadata";
            return false;
        }
        *v = def;
        return true;
    }
    if (gguf_get_kv_type(g, id) != GGUF_TYPE_FLOAT32) {
        *why = key + " is not a float32";
        return false;
    }
    *v = gguf_get_val_f32(g, id);
    return true;
}

bool read_hparams(gguf_context *g, loop_gt_hparams *hp, std::string *why) {
    int64_t id = gguf_find_key(g, "general.architecture");
    if (id < 0 || gguf_get_kv_type(g, id) != GGUF_TYPE_STRING) {
        *why = "no general.architecture";
        return false;
    }
    std::string arch = gguf_get_val_str(g, id);
    if (arch != "qwen2") {
        *why = "architecture " + arch + ": the training graph is qwen2's only";
        return false;
    }
    int64_t embd, nl, nh, nkv, ff, ctx, rot;
    if (!meta_int(g, "qwen2.embedding_length", -1, &embd, why) || !meta_int(g, "qwen2.block_count", -1, &nl, why) ||
        !meta_int(g, "qwen2.attention.head_count", -1, &nh, why) ||
        !meta_int(g, "qwen2.attention.head_count_kv", nh, &nkv, why) ||
        !meta_int(g, "qwen2.feed_forward_length", -1, &ff, why) ||
        !meta_int(g, "qwen2.context_length", -1, &ctx, why) ||
        !meta_float(g, "qwen2.attention.layer_norm_rms_epsilon", NAN, &hp->eps, why) ||
        !meta_float(g, "qwen2.rope.freq_base", 10000.0f, &hp->freq_base, why)) {
        return false;
    }
    const int64_t lim = 1 << 24;
    if (embd < 1 || embd > lim || nl < 1 || nl > 4096 || nh < 1 || nh > 4096 || nkv < 1 || nkv > nh || nh % nkv != 0 ||
        embd % nh != 0 || ff < 1 || ff > lim || ctx < 1 || ctx > lim || !(hp->eps > 0) || !(hp->freq_base > 0)) {
        *why = "hyper-parameters out of range";
        return false;
    }
    if (!meta_int(g, "qwen2.rope.dimension_count", embd / nh, &rot, why)) return false;
    if (rot != embd / nh) {
        *why = "rope.dimension_count differs from the head size";
        return false;
    }
    hp->n_embd = (int32_t) embd, hp->n_layer = (int32_t) nl, hp->n_head = (int32_t) nh;
    hp->n_head_kv = (int32_t) nkv, hp->n_ff = (int32_t) ff, hp->n_ctx_train = (int32_t) ctx;
    return true;
}

// find returns the named weight, checking its shape; NULL with why when it
// is missing (and required) or misshapen.
ggml_tensor *find(loop_gt *g, const std::string &name, int64_t ne0, int64_t ne1, bool required, std::string *why) {
    ggml_tensor *t = ggml_get_tensor(g->wctx, name.c_str());
    if (t == nullptr) {
        if (required) *why = "no tensor " + name;
        return nullptr;
    }
    if (t->ne[0] != ne0 || t->ne[1] != ne1 || t->ne[2] != 1 || t->ne[3] != 1) {
        *why = "tensor " + name + " has the wrong shape";
        return nullptr;
    }
    return t;
}

bool bind(loop_gt *g, std::string *why) {
    const auto &hp = g->hp;
    const int64_t e = hp.n_embd, d = e / hp.n_head, ekv = d * hp.n_head_kv, v = hp.n_vocab;
    if (!(g->tok_embd = find(g, "token_embd.weight", e, v, true, why))) return false;
    if (!(g->out_norm = find(g, "output_norm.weight", e, 1, true, why))) return false;
    g->output = find(g, "output.weight", e, v, false, why);
    if (!why->empty()) return false;
    g->hp.tied = g->output == nullptr;
    g->layers.resize(hp.n_layer);
    for (int il = 0; il < hp.n_layer; il++) {
        std::string p = "blk." + std::to_string(il) + ".";
        layer &l = g->layers[il];
        l.attn_norm = find(g, p + "attn_norm.weight", e, 1, true, why);
        l.wq = find(g, p + "attn_q.weight", e, e, true, why);
        l.bq = find(g, p + "attn_q.bias", e, 1, false, why);
        l.wk = find(g, p + "attn_k.weight", e, ekv, true, why);
        l.bk = find(g, p + "attn_k.bias", ekv, 1, false, why);
        l.wv = find(g, p + "attn_v.weight", e, ekv, true, why);
        l.bv = find(g, p + "attn_v.bias", ekv, 1, false, why);
        l.wo = find(g, p + "attn_output.weight", e, e, true, why);
        l.bo = find(g, p + "attn_output.bias", e, 1, false, why);
        l.ffn_norm = find(g, p + "ffn_norm.weight", e, 1, true, why);
        l.gate = find(g, p + "ffn_gate.weight", e, hp.n_ff, true, why);
        l.up = find(g, p + "ffn_up.weight", e, hp.n_ff, true, why);
        l.down = find(g, p + "ffn_down.weight", hp.n_ff, e, true, why);
        if (!why->empty()) return false;
    }
    return true;
}

// load_tensors makes every tensor of the file in a CPU buffer and reads its
// data from the file.
bool load_tensors(loop_gt *g, gguf_context *gg, ggml_context *meta, std::string *why) {
    const int64_t nt = gguf_get_n_tensors(gg);
    ggml_init_params ip = {(size_t) (nt + 1) * ggml_tensor_overhead(), nullptr, true};
    g->wctx = ggml_init(ip);
    if (!g->wctx) {
        *why = "out of memory";
        return false;
    }
    for (int64_t i = 0; i < nt; i++) {
        const char *name = gguf_get_tensor_name(gg, i);
        ggml_tensor *src = ggml_get_tensor(meta, name);
        if (gguf_get_tensor_type(gg, i) != GGML_TYPE_F32 || src == nullptr) {
            *why = std::string("tensor ") + name + " is " + ggml_type_name(gguf_get_tensor_type(gg, i)) +
                   ": the training graph trains F32 weights only (convert the base model to F32)";
            return false;
        }
        ggml_tensor *t = ggml_dup_tensor(g->wctx, src);
        ggml_set_name(t, name);
        g->weights.push_back(t);
    }
    g->wbuf = ggml_backend_alloc_ctx_tensors(g->wctx, g->backend);
    if (!g->wbuf) {
        *why = "out of memory for the weights";
        return false;
    }
    FILE *f = fopen(g->path.c_str(), "rb");
    if (!f) {
        *why = "cannot open the file";
        return false;
    }
    bool ok = true;
    for (int64_t i = 0; ok && i < nt; i++) {
        ggml_tensor *t = g->weights[i];
        size_t off = gguf_get_data_offset(gg) + gguf_get_tensor_offset(gg, i);
        ok = fseek(f, (long) off, SEEK_SET) == 0 && fread(t->data, 1, ggml_nbytes(t), f) == ggml_nbytes(t);
        if (!ok) *why = std::string("cannot read the data of ") + t->name + " (truncated file?)";
    }
    fclose(f);
    return ok;
}

// kv is the keys and values of a window's prefix, one tensor of each per
// layer. In the prefix's own graph they are outputs: K [d, p, n_head_kv]
// after RoPE and V [p, d, n_head_kv]. In the graph of the rest of the
// window they are inputs with room for the rest, [d, p+n, n_head_kv] and
// [p+n, d, n_head_kv], the prefix's filled in and zeros after it; the
// rest's own keys and values are added into the zeros (ggml_acc, which has
// a backward pass, where concat has none), so the rest attends to both.
struct kv {
    int p = 0;
    std::vector<ggml_tensor *> k, v;
};

// build_forward returns the logits of tokens at positions: [n_vocab, n],
// or only those of the positions in rows ([n_vocab, len(rows)]) when rows
// is not null. With zeros (an input of zeros, [n_embd, m] with m a
// multiple of 16 above len(rows)), the rows' hidden states are its first
// columns and the logits [n_vocab, m]: the columns after them are zero and
// so are their logits (pad says why). With in, the window continues
// the prefix whose keys and values in holds; with out, the keys and values
// of every layer are put there (the prefix's graph needs only those).
ggml_tensor *build_forward(loop_gt *g, ggml_context *ctx, ggml_tensor *tokens, ggml_tensor *pos, ggml_tensor *rows,
                           int n, const kv *in = nullptr, kv *out = nullptr, ggml_tensor *zeros = nullptr) {
    const auto &hp = g->hp;
    const int d = hp.n_embd / hp.n_head;
    const float kq_scale = 1.0f / sqrtf((float) d);
    ggml_tensor *x = ggml_get_rows(ctx, g->tok_embd, tokens); // [n_embd, n]
    auto lin = [&](ggml_tensor *w, ggml_tensor *b, ggml_tensor *h) {
        ggml_tensor *y = ggml_mul_mat(ctx, w, h);
        return b ? ggml_add(ctx, y, b) : y;
    };
    auto rope = [&](ggml_tensor *t) {
        return ggml_rope_ext(ctx, t, pos, nullptr, d, GGML_ROPE_TYPE_NEOX, hp.n_ctx_train, hp.freq_base, 1.0f, 0.0f,
                             1.0f, 32.0f, 1.0f);
    };
    for (const layer &l : g->layers) {
        ggml_tensor *h = ggml_mul(ctx, ggml_rms_norm(ctx, x, hp.eps), l.attn_norm);
        ggml_tensor *q = rope(ggml_reshape_3d(ctx, lin(l.wq, l.bq, h), d, hp.n_head, n));
        ggml_tensor *k = rope(ggml_reshape_3d(ctx, lin(l.wk, l.bk, h), d, hp.n_head_kv, n));
        ggml_tensor *v = ggml_reshape_3d(ctx, lin(l.wv, l.bv, h), d, hp.n_head_kv, n);
        q = ggml_cont(ctx, ggml_permute(ctx, q, 0, 2, 1, 3)); // [d, n, n_head]
        k = ggml_cont(ctx, ggml_permute(ctx, k, 0, 2, 1, 3)); // [d, n, n_head_kv]
        v = ggml_cont(ctx, ggml_permute(ctx, v, 1, 2, 0, 3)); // [n, d, n_head_kv]
        if (out) {
            out->k.push_back(k);
            out->v.push_back(v);
            if (out->k.size() == g->layers.size()) return nullptr;
        }
        int n_past = 0;
        if (in) {
            const size_t il = &l - &g->layers[0];
            ggml_tensor *kb = in->k[il], *vb = in->v[il];
            n_past = in->p;
            k = ggml_acc(ctx, kb, k, kb->nb[1], kb->nb[2], kb->nb[3], (size_t) n_past * kb->nb[1]);
            v = ggml_acc(ctx, vb, v, vb->nb[1], vb->nb[2], vb->nb[3], (size_t) n_past * vb->nb[0]);
        }
        // GQA by mul_mat's broadcasting: query head i reads K/V head
        // i / (n_head/n_head_kv), as llama.cpp's graph does.
        ggml_tensor *kq = ggml_mul_mat(ctx, k, q); // [n_past + n, n, n_head]
        kq = ggml_soft_max(ctx, ggml_diag_mask_inf(ctx, ggml_scale(ctx, kq, kq_scale), n_past));
        ggml_tensor *kqv = ggml_mul_mat(ctx, v, kq); // [d, n, n_head]
        kqv = ggml_cont_2d(ctx, ggml_permute(ctx, kqv, 0, 2, 1, 3), hp.n_embd, n);
        x = ggml_add(ctx, x, lin(l.wo, l.bo, kqv));
        h = ggml_mul(ctx, ggml_rms_norm(ctx, x, hp.eps), l.ffn_norm);
        ggml_tensor *ffn = ggml_mul(ctx, ggml_silu(ctx, ggml_mul_mat(ctx, l.gate, h)), ggml_mul_mat(ctx, l.up, h));
        x = ggml_add(ctx, x, ggml_mul_mat(ctx, l.down, ffn));
    }
    x = ggml_mul(ctx, ggml_rms_norm(ctx, x, hp.eps), g->out_norm);
    if (rows) x = ggml_get_rows(ctx, x, rows); // [n_embd, len(rows)]
    if (rows && zeros) x = ggml_acc(ctx, zeros, x, zeros->nb[1], zeros->nb[2], zeros->nb[3], 0);
    return ggml_mul_mat(ctx, g->hp.tied ? g->tok_embd : g->output, x);
}

// graph is one window's compute context and forward graph.
struct graph {
    ggml_context *ctx = nullptr;
    ggml_cgraph *gf = nullptr;
    ggml_tensor *tokens = nullptr, *pos = nullptr, *rows = nullptr, *logits = nullptr;
    ggml_tensor *zeros = nullptr; // the padding of the rows' hidden states (pad), or null
    kv prefix; // inputs: the keys and values of the prefix the window continues (prefix.p > 0)
    ~graph() { ggml_free(ctx); }
};

size_t graph_size(const loop_gt *g) { return 2048 + 256 * (size_t) g->hp.n_layer; }

// new_ctx makes gr's context, big enough for a training graph, its
// backward pass and as_mul_mats's rewrite.
bool new_ctx(loop_gt *g, graph *gr, std::string *why) {
    const size_t size = graph_size(g);
    ggml_init_params ip = {6 * size * ggml_tensor_overhead() + 2 * ggml_graph_overhead_custom(size, true) +
                               ggml_graph_overhead_custom(2 * size, false),
                           nullptr, true};
    gr->ctx = ggml_init(ip);
    if (!gr->ctx) *why = "out of memory for the graph";
    return gr->ctx != nullptr;
}

// pad rounds a window's positions up to a multiple of 16, the block of
// llamafile's F32 matmul (tinyBLAS needs the shared dimension to be one):
// with the padding, every product whose shared dimension is the positions
// (attention times V, and the gradients of the weights, K and V) runs in
// tinyBLAS instead of ggml's row-by-row vec_dot. The padding positions come
// after the window's, so the causal mask keeps them out of every real
// position, and no loss is taken on them.
//
// Target rows are padded the same way: the logits of m target positions
// get pad(m) columns. The backward pass of the output layer has the
// targets as the shared dimension of the weight's gradient, and with m not
// a multiple of 16 that product fell to ggml's row-by-row vec_dot. The
// padding columns' hidden states are zeros, so they add nothing to that
// gradient; their labels are uniform (step), the loss is scaled back to
// the mean over the m real ones, and the rows' gradients are the same as
// without.
int pad(int n) { return (n + 15) / 16 * 16; }

// build makes the forward graph of n positions; with m >= 0 its logits are
// only those of m positions that an input, rows, names (pad(m)
// columns, the last zero). With p > 0 the n positions come after a prefix
// of p, whose keys and values are inputs (gr->prefix).
bool build(loop_gt *g, graph *gr, int n, int m, std::string *why, int p = 0) {
    const size_t size = graph_size(g);
    if (!new_ctx(g, gr, why)) return false;
    gr->tokens = ggml_new_tensor_1d(gr->ctx, GGML_TYPE_I32, n);
    ggml_set_name(gr->tokens, "tokens");
    ggml_set_input(gr->tokens);
    gr->pos = ggml_new_tensor_1d(gr->ctx, GGML_TYPE_I32, n);
    ggml_set_name(gr->pos, "pos");
    ggml_set_input(gr->pos);
    if (m >= 0) {
        gr->rows = ggml_new_tensor_1d(gr->ctx, GGML_TYPE_I32, m);
        ggml_set_name(gr->rows, "rows");
        ggml_set_input(gr->rows);
        if (pad(m) > m) {
            gr->zeros = ggml_new_tensor_2d(gr->ctx, GGML_TYPE_F32, g->hp.n_embd, pad(m));
            ggml_set_name(gr->zeros, "zeros");
            ggml_set_input(gr->zeros);
        }
    }
    gr->prefix.p = p;
    const int d = g->hp.n_embd / g->hp.n_head;
    for (size_t il = 0; p > 0 && il < g->layers.size(); il++) {
        ggml_tensor *k = ggml_new_tensor_3d(gr->ctx, GGML_TYPE_F32, d, p + n, g->hp.n_head_kv);
        ggml_tensor *v = ggml_new_tensor_3d(gr->ctx, GGML_TYPE_F32, p + n, d, g->hp.n_head_kv);
        ggml_set_input(k);
        ggml_set_input(v);
        gr->prefix.k.push_back(k);
        gr->prefix.v.push_back(v);
    }
    gr->logits = build_forward(g, gr->ctx, gr->tokens, gr->pos, gr->rows, n, p > 0 ? &gr->prefix : nullptr, nullptr,
                               gr->zeros);
    ggml_set_name(gr->logits, "logits");
    ggml_set_output(gr->logits);
    gr->gf = ggml_new_graph_custom(gr->ctx, size, false);
    ggml_build_forward_expand(gr->gf, gr->logits);
    return true;
}

// set_inputs sets the tokens of gr, at positions from p on.
void set_inputs(graph *gr, const int32_t *tokens, int n, int p = 0) {
    std::vector<int32_t> pos(n);
    for (int i = 0; i < n; i++) pos[i] = p + i;
    ggml_backend_tensor_set(gr->tokens, tokens, 0, sizeof(int32_t) * n);
    ggml_backend_tensor_set(gr->pos, pos.data(), 0, sizeof(int32_t) * n);
}

// prefix_kv runs the forward graph of the p tokens of a window's prefix
// and returns the keys and values of every layer (kv's output layout, on
// the host): a window that continues the prefix attends to them instead of
// computing the prefix again with a backward pass. They are computed with
// the weights of the moment and are constants of the window's graph, so no
// gradient flows through them into the weights, as none flows between
// llama.cpp's ubatches in opt_epoch_iter.
bool prefix_kv(loop_gt *g, const int32_t *tokens, int p, host_kv *host, std::string *why) {
    graph gr;
    if (!new_ctx(g, &gr, why)) return false;
    gr.tokens = ggml_new_tensor_1d(gr.ctx, GGML_TYPE_I32, p);
    ggml_set_input(gr.tokens);
    gr.pos = ggml_new_tensor_1d(gr.ctx, GGML_TYPE_I32, p);
    ggml_set_input(gr.pos);
    kv out;
    build_forward(g, gr.ctx, gr.tokens, gr.pos, nullptr, p, nullptr, &out);
    gr.gf = ggml_new_graph_custom(gr.ctx, graph_size(g), false);
    for (size_t il = 0; il < out.k.size(); il++) {
        ggml_set_output(out.k[il]);
        ggml_set_output(out.v[il]);
        ggml_build_forward_expand(gr.gf, out.k[il]);
        ggml_build_forward_expand(gr.gf, out.v[il]);
    }
    ggml_backend_sched_reset(g->sched);
    if (!ggml_backend_sched_alloc_graph(g->sched, gr.gf)) {
        *why = "cannot allocate the prefix's graph (out of memory?)";
        return false;
    }
    set_inputs(&gr, tokens, p);
    bool ok = ggml_backend_sched_graph_compute(g->sched, gr.gf) == GGML_STATUS_SUCCESS;
    if (!ok) *why = "the prefix's graph failed";
    for (size_t il = 0; ok && il < out.k.size(); il++) {
        host->k.emplace_back(ggml_nelements(out.k[il]));
        host->v.emplace_back(ggml_nelements(out.v[il]));
        ggml_backend_tensor_get(out.k[il], host->k.back().data(), 0, ggml_nbytes(out.k[il]));
        ggml_backend_tensor_get(out.v[il], host->v.back().data(), 0, ggml_nbytes(out.v[il]));
    }
    ggml_backend_sched_reset(g->sched);
    return ok;
}

// set_prefix fills gr's prefix inputs: the prefix's keys and values, then
// zeros where the window's own are added.
void set_prefix(graph *gr, const host_kv &host) {
    const auto &k = host.k, &v = host.v;
    const int p = gr->prefix.p;
    for (size_t il = 0; il < gr->prefix.k.size(); il++) {
        ggml_tensor *kt = gr->prefix.k[il], *vt = gr->prefix.v[il];
        ggml_backend_tensor_memset(kt, 0, 0, ggml_nbytes(kt));
        ggml_backend_tensor_memset(vt, 0, 0, ggml_nbytes(vt));
        const int64_t d = kt->ne[0];
        for (int64_t h = 0; h < kt->ne[2]; h++) { // K: [d, p] of each head, at its start
            ggml_backend_tensor_set(kt, k[il].data() + h * d * p, h * kt->nb[2], sizeof(float) * d * p);
        }
        for (int64_t r = 0; r < vt->ne[1] * vt->ne[2]; r++) { // V: the first p of each row
            ggml_backend_tensor_set(vt, v[il].data() + r * p, r * vt->nb[1], sizeof(float) * p);
        }
    }
}


// step is one window's loss graph: the forward graph, the labels and the
// cross-entropy, and for training the backward pass and an AdamW step of
// every weight.
//
// The loss is over the masked positions only, and the graph computes the
// logits of those alone (get_rows before the output layer). Zero label
// rows would not do: ggml_cross_entropy_loss_back's gradient is
// softmax(logits) - labels, right only for labels that sum to 1, so a zero
// row pushes its position towards the uniform distribution (masked
// training then lost what the model knew: TestTrainerMaskedGradient).
struct step {
    graph gr;
    ggml_tensor *labels = nullptr, *loss = nullptr;
    ggml_cgraph *gb = nullptr; // the graph to compute: gr.gf, or the backward and optimizer graph
    ggml_tensor *loss_acc = nullptr;   // d loss / d loss, set to 1 (backward only)
    std::vector<ggml_tensor *> grads;  // of g->weights, in order; null for a weight the window does not reach
    int m = 0;                         // target positions, the columns of the logits before the padding (pad)
};

// cont_f32 is ggml_cont of an F32 view with any strides, a custom op of
// threads ith of nth, by tiles of 32 x 32 elements of each plane.
//
// Why: ggml's copy of a view whose rows are not contiguous (a transpose)
// calls memcpy once per element. The backward pass transposes the
// attention probabilities and their gradient ([keys, queries, heads], 2.5M
// numbers per layer in a demo window), and perf put 18% of a training
// window's time in those copies.
void cont_f32(ggml_tensor *dst, const ggml_tensor *a, int ith, int nth, void *) {
    constexpr int64_t T = 32;
    const int64_t n0 = dst->ne[0], n1 = dst->ne[1], n2 = dst->ne[2], n3 = dst->ne[3];
    const int64_t t0 = (n0 + T - 1) / T, t1 = (n1 + T - 1) / T;
    const int64_t tiles = t0 * t1 * n2 * n3;
    for (int64_t t = ith; t < tiles; t += nth) {
        int64_t r = t;
        const int64_t b0 = r % t0;
        r /= t0;
        const int64_t b1 = r % t1;
        r /= t1;
        const int64_t i2 = r % n2, i3 = r / n2;
        const char *src = (const char *) a->data + i2 * a->nb[2] + i3 * a->nb[3];
        char *out = (char *) dst->data + i2 * dst->nb[2] + i3 * dst->nb[3];
        for (int64_t i1 = b1 * T; i1 < std::min(n1, b1 * T + T); i1++) {
            float *row = (float *) (out + i1 * dst->nb[1]);
            const char *in = src + i1 * a->nb[1];
            for (int64_t i0 = b0 * T; i0 < std::min(n0, b0 * T + T); i0++) row[i0] = *(const float *) (in + i0 * a->nb[0]);
        }
    }
}

// as_mul_mats rewrites every F32 OUT_PROD node of gb (the backward pass of
// mul_mat, for both of its sources) into the same product as a MUL_MAT
// of the transposed sources, and returns a graph of the same nodes with the
// transposes before their products.
//
// Why: ggml's CPU out_prod is a loop of vec_mad rows, far slower than
// tinyBLAS; perf put half of a training window's time in it, and with the
// rewrite (and pad) an epoch of 54 chats took 14.9 s instead of 32.0 s
// (2 threads, the training base). out_prod(a, b)[i, j] = sum_k a[i, k] b[j, k], with a
// broadcast over b's dims 2 and 3 as mul_mat broadcasts its first source,
// so it equals mul_mat(a^T, b^T). A transpose of a transposed view is
// contiguous and is used as it is; any other is made contiguous (a copy,
// cont_f32).
// The node keeps its identity, so the gradients that point at it stay
// right; TestTrainerGradients checks the result against finite differences.
ggml_cgraph *as_mul_mats(ggml_context *ctx, ggml_cgraph *gb, size_t size) {
    std::vector<ggml_tensor *> nodes(ggml_graph_n_nodes(gb));
    for (size_t i = 0; i < nodes.size(); i++) nodes[i] = ggml_graph_node(gb, (int) i);
    auto transposed = [&](ggml_tensor *t) {
        ggml_tensor *tt = ggml_transpose(ctx, t);
        if (ggml_is_contiguous(tt)) return tt;
        return tt->type == GGML_TYPE_F32 ? ggml_map_custom1(ctx, tt, cont_f32, GGML_N_TASKS_MAX, nullptr) : ggml_cont(ctx, tt);
    };
    for (ggml_tensor *t : nodes) {
        if (t->op != GGML_OP_OUT_PROD || t->type != GGML_TYPE_F32 || t->src[0]->type != GGML_TYPE_F32 ||
            t->src[1]->type != GGML_TYPE_F32) {
            continue;
        }
        ggml_tensor *x = transposed(t->src[0]), *y = transposed(t->src[1]);
        t->op = GGML_OP_MUL_MAT;
        t->src[0] = x;
        t->src[1] = y;
    }
    ggml_cgraph *out = ggml_new_graph_custom(ctx, 2 * size, false);
    for (ggml_tensor *t : nodes) ggml_build_forward_expand(out, t);
    return out;
}

bool build_step(loop_gt *g, step *st, int n, int m, bool backward, std::string *why, int p = 0) {
    if (!build(g, &st->gr, n, m, why, p)) return false;
    ggml_context *ctx = st->gr.ctx;
    st->m = m;
    st->labels = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, g->hp.n_vocab, st->gr.logits->ne[1]);
    ggml_set_name(st->labels, "labels");
    ggml_set_input(st->labels);
    st->loss = ggml_cross_entropy_loss(ctx, st->gr.logits, st->labels);
    if (st->gr.logits->ne[1] > m) { // the mean over the m real columns (pad)
        st->loss = ggml_scale(ctx, st->loss, (float) st->gr.logits->ne[1] / (float) m);
    }
    ggml_set_name(st->loss, "loss");
    ggml_set_output(st->loss);
    ggml_build_forward_expand(st->gr.gf, st->loss);
    st->gb = st->gr.gf;
    if (!backward) return true;
    ggml_set_loss(st->loss);
    st->gb = ggml_graph_dup(ctx, st->gr.gf, true);
    ggml_build_backward_expand(ctx, st->gb, nullptr);
    // ggml-alloc lets RMS_NORM_BACK reuse the memory of its first source,
    // the incoming gradient, but the CPU kernel writes x into the
    // destination before it reads that gradient: in place, every gradient
    // below a norm is wrong (the loss climbs). Marking those sources as
    // outputs keeps ggml-alloc from reusing them. TestTrainerGradients
    // catches a regression.
    for (int i = 0; i < ggml_graph_n_nodes(st->gb); i++) {
        ggml_tensor *t = ggml_graph_node(st->gb, i);
        if (t->op == GGML_OP_RMS_NORM_BACK) ggml_set_output(t->src[0]);
    }
    st->loss_acc = ggml_graph_get_grad_acc(st->gb, st->loss);
    for (ggml_tensor *w : g->weights) st->grads.push_back(ggml_graph_get_grad(st->gb, w));
    st->gb = as_mul_mats(ctx, st->gb, graph_size(g));
    return true;
}

// run_step allocates and computes st with the labels of the masked
// positions, and returns the loss (the mean over the masked positions).
// With a prefix (st built with p > 0), tokens are those after it.
bool run_step(loop_gt *g, step *st, const int32_t *tokens, const int32_t *labels, const uint8_t *mask, int n,
              float *loss, std::string *why, const host_kv *prefix = nullptr) {
    ggml_backend_sched_reset(g->sched);
    if (!ggml_backend_sched_alloc_graph(g->sched, st->gb)) {
        *why = "cannot allocate the training graph (out of memory?)";
        return false;
    }
    if (st->loss_acc) {
        const float one = 1.0f; // d loss / d loss
        ggml_backend_tensor_set(st->loss_acc, &one, 0, sizeof(one));
    }
    const int np = (int) st->gr.tokens->ne[0]; // n, padded
    std::vector<int32_t> padded(tokens, tokens + n);
    padded.resize(np, tokens[n - 1]);
    set_inputs(&st->gr, padded.data(), np, st->gr.prefix.p);
    if (prefix) set_prefix(&st->gr, *prefix);
    std::vector<int32_t> rows;
    for (int i = 0; i < n; i++) {
        if (mask[i]) rows.push_back(i);
    }
    ggml_tensor *lab = st->labels;
    const int64_t m = (int64_t) rows.size(), vocab = lab->ne[0];
    if (m != st->m) {
        *why = "the mask does not match the graph";
        return false;
    }
    ggml_backend_tensor_set(st->gr.rows, rows.data(), 0, sizeof(int32_t) * rows.size());
    ggml_backend_tensor_memset(lab, 0, 0, ggml_nbytes(lab));
    const float one = 1.0f;
    for (size_t j = 0; j < rows.size(); j++) {
        ggml_backend_tensor_set(lab, &one, (j * vocab + labels[rows[j]]) * sizeof(float), sizeof(float));
    }
    if (st->gr.zeros) { // the padding columns: zero hidden states, uniform labels (pad)
        ggml_backend_tensor_memset(st->gr.zeros, 0, 0, ggml_nbytes(st->gr.zeros));
        std::vector<float> uniform(vocab * (lab->ne[1] - m), (float) (1.0 / (double) vocab));
        ggml_backend_tensor_set(lab, uniform.data(), m * lab->nb[1], sizeof(float) * uniform.size());
    }
    if (ggml_backend_sched_graph_compute(g->sched, st->gb) != GGML_STATUS_SUCCESS) {
        *why = "the training graph failed";
        return false;
    }
    ggml_backend_tensor_get(st->loss, loss, 0, sizeof(float));
    if (st->gr.zeros) { // each padding column adds log(vocab), the loss of uniform logits against uniform labels
        *loss = (float) (*loss - (double) (lab->ne[1] - m) / (double) m * log((double) vocab));
    }
    return true;
}

} // namespace

extern "C" {

void loop_gt_free(struct loop_gt *g) {
    if (!g) return;
    if (g->obuf) ggml_backend_buffer_free(g->obuf);
    ggml_free(g->octx);
    if (g->sched) ggml_backend_sched_free(g->sched);
    if (g->wbuf) ggml_backend_buffer_free(g->wbuf);
    ggml_free(g->wctx);
    if (g->backend) ggml_backend_free(g->backend);
    delete g;
}

void loop_gt_set_lr(struct loop_gt *g, float lr) {
    if (g->octx) g->pars.adamw.alpha = lr; // before the optimizer exists, loop_gt_opt_init takes it
}

void loop_gt_set_threads(struct loop_gt *g, int32_t threads) { ggml_backend_cpu_set_n_threads(g->backend, threads); }

void loop_gt_set_prefix_every(struct loop_gt *g, int32_t steps) { g->prefix_every = steps < 1 ? 1 : steps; }

struct loop_gt *loop_gt_open(const char *path, int32_t threads, struct loop_gt_hparams *hp, int32_t *code,
                             char *err, size_t n) {
    set_err(err, n, "");
    *code = LOOP_GT_OK;
    ggml_context *meta = nullptr;
    gguf_init_params gp = {true, &meta};
    gguf_context *gg = gguf_init_from_file(path, gp);
    if (!gg) {
        *code = LOOP_GT_NOT_GGUF;
        set_err(err, n, "cannot read the GGUF header");
        return nullptr;
    }
    loop_gt *g = nullptr;
    std::string why;
    try {
        g = new loop_gt;
        g->path = path;
        int32_t cls = LOOP_GT_INVALID;
        bool ok = read_hparams(gg, &g->hp, &why);
        if (ok) {
            ggml_tensor *te = ggml_get_tensor(meta, "token_embd.weight");
            ok = te && te->ne[1] > 0 && te->ne[1] < (1 << 24);
            if (!ok) why = "no usable token_embd.weight";
            else g->hp.n_vocab = (int32_t) te->ne[1];
        }
        if (ok) {
            cls = LOOP_GT_INTERNAL;
            g->backend = ggml_backend_cpu_init();
            ok = g->backend != nullptr;
            if (!ok) why = "cannot start the CPU backend";
        }
        if (ok) {
            ggml_backend_cpu_set_n_threads(g->backend, threads);
            ok = load_tensors(g, gg, meta, &why);
            if (!ok && why.find("F32") != std::string::npos) cls = LOOP_GT_INVALID;
        }
        if (ok) {
            ok = bind(g, &why);
            if (!ok) cls = LOOP_GT_INVALID;
        }
        if (ok) {
            ggml_backend_buffer_type_t buft = ggml_backend_get_default_buffer_type(g->backend);
            g->sched = ggml_backend_sched_new(&g->backend, &buft, 1, graph_size(g) * 4, false, false);
            ok = g->sched != nullptr;
            if (!ok) {
                why = "cannot make the scheduler";
                cls = LOOP_GT_INTERNAL;
            }
        }
        if (!ok) {
            *code = cls;
            set_err(err, n, why);
            loop_gt_free(g);
            g = nullptr;
        } else {
            *hp = g->hp;
        }
    } catch (const std::exception &e) {
        *code = LOOP_GT_INTERNAL;
        set_err(err, n, e.what());
        loop_gt_free(g);
        g = nullptr;
    }
    gguf_free(gg);
    ggml_free(meta);
    return g;
}

bool loop_gt_logits(struct loop_gt *g, const int32_t *tokens, int32_t n, float *out, char *err, size_t n_err) {
    set_err(err, n_err, "");
    try {
        graph gr;
        std::string why;
        if (!build(g, &gr, n, -1, &why)) {
            set_err(err, n_err, why);
            return false;
        }
        ggml_backend_sched_reset(g->sched);
        if (!ggml_backend_sched_alloc_graph(g->sched, gr.gf)) {
            set_err(err, n_err, "cannot allocate the forward graph");
            return false;
        }
        set_inputs(&gr, tokens, n);
        if (ggml_backend_sched_graph_compute(g->sched, gr.gf) != GGML_STATUS_SUCCESS) {
            set_err(err, n_err, "the forward graph failed");
            return false;
        }
        ggml_backend_tensor_get(gr.logits, out, 0, ggml_nbytes(gr.logits));
        ggml_backend_sched_reset(g->sched);
        return true;
    } catch (const std::exception &e) {
        set_err(err, n_err, e.what());
    }
    return false;
}

bool loop_gt_opt_init(struct loop_gt *g, float lr, float wd, char *err, size_t n) {
    set_err(err, n, "");
    if (g->octx) return true;
    try {
        g->pars = ggml_opt_get_default_optimizer_params(nullptr);
        g->pars.adamw.alpha = lr;
        g->pars.adamw.wd = wd;
        ggml_init_params ip = {(2 * g->weights.size() + 1) * ggml_tensor_overhead(), nullptr, true};
        g->octx = ggml_init(ip);
        if (!g->octx) {
            set_err(err, n, "out of memory");
            return false;
        }
        for (ggml_tensor *t : g->weights) {
            g->m.push_back(ggml_dup_tensor(g->octx, t));
            g->v.push_back(ggml_dup_tensor(g->octx, t));
        }
        g->adamw = ggml_new_tensor_1d(g->octx, GGML_TYPE_F32, 7);
        g->obuf = ggml_backend_alloc_ctx_tensors(g->octx, g->backend);
        if (!g->obuf) {
            set_err(err, n, "out of memory for the optimizer state");
            return false;
        }
        ggml_backend_buffer_clear(g->obuf, 0);
        for (ggml_tensor *t : g->weights) ggml_set_param(t);
        return true;
    } catch (const std::exception &e) {
        set_err(err, n, e.what());
    }
    return false;
}

// add_adamw adds an AdamW step of every weight to st's backward graph, with
// the parameters ggml_opt_eval would give step g->iter+1.
static void add_adamw(loop_gt *g, step *st) {
    const auto &p = g->pars.adamw;
    const int64_t it = g->iter + 1;
    float pars[7] = {p.alpha, p.beta1, p.beta2, p.eps, p.wd, 1.0f / (1.0f - powf(p.beta1, (float) it)),
                     1.0f / (1.0f - powf(p.beta2, (float) it))};
    ggml_backend_tensor_set(g->adamw, pars, 0, sizeof(pars));
    for (size_t i = 0; i < g->weights.size(); i++) {
        ggml_tensor *grad = st->grads[i];
        if (!grad) continue; // a weight the window does not reach
        ggml_build_forward_expand(st->gb, ggml_opt_step_adamw(st->gr.ctx, g->weights[i], grad, g->m[i], g->v[i], g->adamw));
    }
}

bool loop_gt_window(struct loop_gt *g, const int32_t *tokens, const int32_t *labels, const uint8_t *mask,
                    int32_t n, int32_t prefix, bool train, double *loss, char *err, size_t n_err) {
    set_err(err, n_err, "");
    *loss = 0;
    if (prefix < 0 || prefix >= n) {
        set_err(err, n_err, "a prefix of " + std::to_string(prefix) + " positions in a window of " + std::to_string(n));
        return false;
    }
    int n_masked = 0;
    for (int i = 0; i < n; i++) {
        if (i < prefix && mask[i]) {
            set_err(err, n_err, "position " + std::to_string(i) + " of the prefix is a target");
            return false;
        }
        n_masked += mask[i] != 0;
    }
    if (n_masked == 0) return true;
    if (!g->octx) {
        set_err(err, n_err, "no optimizer");
        return false;
    }
    try {
        step st;
        std::string why;
        float l = 0;
        // The prefix's keys and values: the last ones when the tokens are
        // the same and the weights have not changed since, or (training)
        // changed by fewer than prefix_every steps.
        const bool same = prefix > 0 && g->prefix_iter >= 0 && g->prefix_tokens.size() == (size_t) prefix &&
                          std::equal(tokens, tokens + prefix, g->prefix_tokens.begin());
        const int64_t age = g->iter - g->prefix_iter;
        if (prefix > 0 && !(same && (age == 0 || (train && age < g->prefix_every)))) {
            g->prefix_iter = -1;
            g->prefix_kv = host_kv{};
            if (!prefix_kv(g, tokens, prefix, &g->prefix_kv, &why)) {
                set_err(err, n_err, why);
                return false;
            }
            g->prefix_tokens.assign(tokens, tokens + prefix);
            g->prefix_iter = g->iter;
        }
        const int rest = n - prefix;
        if (!build_step(g, &st, pad(rest), n_masked, train, &why, prefix)) {
            set_err(err, n_err, why);
            return false;
        }
        if (train) add_adamw(g, &st);
        bool ok = run_step(g, &st, tokens + prefix, labels + prefix, mask + prefix, rest, &l, &why,
                           prefix > 0 ? &g->prefix_kv : nullptr);
        ggml_backend_sched_reset(g->sched);
        if (!ok) {
            set_err(err, n_err, why);
            return false;
        }
        if (train) g->iter++;
        *loss = l; // the mean over the masked rows, the only ones in the graph
        return true;
    } catch (const std::exception &e) {
        set_err(err, n_err, e.what());
    }
    return false;
}

bool loop_gt_grad_check(struct loop_gt *g, const int32_t *tokens, const int32_t *labels, const uint8_t *mask_in,
                        int32_t n, const char *name, double h, double *norm, double *directional, char *err, size_t n_err) {
    set_err(err, n_err, "");
    ggml_tensor *w = ggml_get_tensor(g->wctx, name);
    if (!w || !g->octx) {
        set_err(err, n_err, w ? "no optimizer" : "no such tensor");
        return false;
    }
    try {
        std::vector<uint8_t> mask(n, 1);
        if (mask_in) mask.assign(mask_in, mask_in + n);
        int m = 0;
        for (uint8_t b : mask) m += b != 0;
        if (m == 0) {
            set_err(err, n_err, "no masked position");
            return false;
        }
        std::vector<float> grad(ggml_nelements(w));
        std::string why;
        float l;
        {
            step st;
            bool ok = build_step(g, &st, pad(n), m, true, &why);
            ggml_tensor *gw = nullptr;
            for (size_t i = 0; ok && i < g->weights.size(); i++) {
                if (g->weights[i] == w) gw = st.grads[i];
            }
            if (gw) ggml_set_output(gw);
            ok = ok && gw && run_step(g, &st, tokens, labels, mask.data(), n, &l, &why);
            if (ok) ggml_backend_tensor_get(gw, grad.data(), 0, ggml_nbytes(w));
            ggml_backend_sched_reset(g->sched);
            if (!ok) {
                set_err(err, n_err, why.empty() ? "no gradient" : why);
                return false;
            }
        }
        double nn = 0;
        for (float x : grad) nn += (double) x * x;
        *norm = sqrt(nn);
        float *wd = (float *) w->data;
        std::vector<float> w0(wd, wd + grad.size());
        float lp[2];
        for (int s = 0; s < 2; s++) {
            const double sign = s == 0 ? 1 : -1;
            for (size_t i = 0; i < grad.size(); i++) wd[i] = (float) (w0[i] + sign * h * grad[i] / *norm);
            step st;
            bool ok = build_step(g, &st, pad(n), m, false, &why) && run_step(g, &st, tokens, labels, mask.data(), n, &lp[s], &why);
            ggml_backend_sched_reset(g->sched);
            if (!ok) break;
        }
        memcpy(wd, w0.data(), ggml_nbytes(w));
        if (!why.empty()) {
            set_err(err, n_err, why);
            return false;
        }
        *directional = ((double) lp[0] - lp[1]) / (2 * h);
        return true;
    } catch (const std::exception &e) {
        set_err(err, n_err, e.what());
    }
    return false;
}

bool loop_gt_write(struct loop_gt *g, const char *path, char *err, size_t n) {
    set_err(err, n, "");
    gguf_init_params gp = {true, nullptr};
    gguf_context *gg = gguf_init_from_file(path, gp);
    if (!gg) {
        set_err(err, n, "the copy of the base file does not read as GGUF");
        return false;
    }
    std::string why;
    FILE *f = fopen(path, "r+b");
    if (!f) why = "cannot open the copy for writing";
    for (size_t i = 0; f && why.empty() && i < g->weights.size(); i++) {
        ggml_tensor *t = g->weights[i];
        int64_t id = gguf_find_tensor(gg, t->name);
        if (id < 0 || gguf_get_tensor_type(gg, id) != t->type || gguf_get_tensor_size(gg, id) != ggml_nbytes(t)) {
            why = std::string("tensor ") + t->name + " differs in the copy";
            break;
        }
        long off = (long) (gguf_get_data_offset(gg) + gguf_get_tensor_offset(gg, id));
        if (fseek(f, off, SEEK_SET) != 0 || fwrite(t->data, 1, ggml_nbytes(t), f) != ggml_nbytes(t)) {
            why = std::string("cannot write ") + t->name;
        }
    }
    if (f && why.empty() && fflush(f) != 0) why = "cannot flush the file";
    // read back
    std::vector<char> buf;
    for (size_t i = 0; f && why.empty() && i < g->weights.size(); i++) {
        ggml_tensor *t = g->weights[i];
        int64_t id = gguf_find_tensor(gg, t->name);
        buf.resize(ggml_nbytes(t));
        long off = (long) (gguf_get_data_offset(gg) + gguf_get_tensor_offset(gg, id));
        if (fseek(f, off, SEEK_SET) != 0 || fread(buf.data(), 1, buf.size(), f) != buf.size() ||
            memcmp(buf.data(), t->data, buf.size()) != 0) {
            why = std::string("tensor ") + t->name + " does not read back as written";
        }
    }
    if (f && fclose(f) != 0 && why.empty()) why = "cannot close the file";
    gguf_free(gg);
    if (!why.empty()) {
        set_err(err, n, why);
        return false;
    }
    return true;
}

} // extern "C"

