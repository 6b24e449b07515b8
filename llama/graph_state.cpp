// graph_state.cpp: the training graph's state on disk (graph.h): the
// optimizer's, which a stopped run needs to go on exactly as if it had not
// stopped, and the weights of a checkpoint.
//
// The optimizer state is a GGUF file written with gguf_write_to_file:
//
//	loop.optimizer.format       u32  1
//	loop.optimizer.type         str  "adamw"
//	loop.optimizer.iter         i64  AdamW's steps taken (its bias corrections)
//	loop.optimizer.alpha        f32  the learning rate of the last step
//	loop.optimizer.beta1        f32  ggml_opt_optimizer_params.adamw's,
//	loop.optimizer.beta2        f32  which a restore must match
//	loop.optimizer.eps          f32
//	loop.optimizer.wd           f32
//	loop.optimizer.prefix_iter  i64  the step whose weights computed the cached prefix; -1: none
//	m.NAME, v.NAME              f32  AdamW's moments of weight NAME, in its shape
//	prefix.tokens               i32  the cached prefix's tokens (when prefix_iter >= 0)
//	prefix.k.IL, prefix.v.IL    f32  its keys and values of layer IL (host_kv, flat)
//
// The prefix's keys and values are state: with prefix_every above 1 the
// next windows attend to the cached ones, up to prefix_every-1 steps old,
// and computing them again from the restored weights would change the
// next steps. Everything else the next step depends on is the weights (a
// model file, loop_gt_read_weights) or the caller's (the learning rate of
// its schedule, the order of its windows).
//
// A read stages every tensor before it changes the graph, so a file that
// fails a check halfway (truncated, of another model) leaves it as it was.
#include "graph.h"
#include "graph_impl.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "ggml.h"
#include "gguf.h"

namespace {

void set_err(char *err, size_t n, const std::string &msg) {
    if (n == 0) return;
    size_t k = msg.size() < n - 1 ? msg.size() : n - 1;
    memcpy(err, msg.data(), k);
    err[k] = 0;
}

const char *const kFormat = "loop.optimizer.format", *const kType = "loop.optimizer.type",
                  *const kIter = "loop.optimizer.iter", *const kAlpha = "loop.optimizer.alpha",
                  *const kBeta1 = "loop.optimizer.beta1", *const kBeta2 = "loop.optimizer.beta2",
                  *const kEps = "loop.optimizer.eps", *const kWd = "loop.optimizer.wd",
                  *const kPrefixIter = "loop.optimizer.prefix_iter";
const uint32_t kFormatVersion = 1;

std::string shape(const int64_t ne[4]) {
    int last = 3;
    while (last > 0 && ne[last] == 1) last--;
    std::string s = std::to_string(ne[0]);
    for (int i = 1; i <= last; i++) s += "x" + std::to_string(ne[i]);
    return s;
}

// entry is one tensor of a state file: its name, type and shape, and
// where its data is (or goes).
struct entry {
    std::string name;
    ggml_type type;
    int64_t ne[4];
    void *data;
    size_t nbytes() const { return (size_t) (ne[0] * ne[1] * ne[2] * ne[3]) * ggml_type_size(type); }
};

entry like(const std::string &name, const ggml_tensor *t, void *data) {
    return entry{name, t->type, {t->ne[0], t->ne[1], t->ne[2], t->ne[3]}, data};
}

entry flat(const std::string &name, ggml_type type, int64_t n, void *data) { return entry{name, type, {n, 1, 1, 1}, data}; }

// prefix_size is the numbers of one layer's keys (or values) of a prefix
// of p positions.
int64_t prefix_size(const loop_gt *g, int64_t p) {
    return (int64_t) (g->hp.n_embd / g->hp.n_head) * p * g->hp.n_head_kv;
}

// opt_entries lists the tensors of an optimizer state with a cached prefix
// of p tokens (0: none), their data at m, v, tokens, k and kv.
std::vector<entry> opt_entries(const loop_gt *g, int64_t p, const std::vector<void *> &m, const std::vector<void *> &v,
                               void *tokens, const std::vector<void *> &k, const std::vector<void *> &kv) {
    std::vector<entry> out;
    for (size_t i = 0; i < g->weights.size(); i++) out.push_back(like(std::string("m.") + g->weights[i]->name, g->weights[i], m[i]));
    for (size_t i = 0; i < g->weights.size(); i++) out.push_back(like(std::string("v.") + g->weights[i]->name, g->weights[i], v[i]));
    if (p == 0) return out;
    out.push_back(flat("prefix.tokens", GGML_TYPE_I32, p, tokens));
    for (size_t il = 0; il < g->layers.size(); il++) {
        out.push_back(flat("prefix.k." + std::to_string(il), GGML_TYPE_F32, prefix_size(g, p), k[il]));
        out.push_back(flat("prefix.v." + std::to_string(il), GGML_TYPE_F32, prefix_size(g, p), kv[il]));
    }
    return out;
}

// live_entries lists g's own optimizer state.
std::vector<entry> live_entries(loop_gt *g) {
    std::vector<void *> m, v, k, kv;
    for (ggml_tensor *t : g->m) m.push_back(t->data);
    for (ggml_tensor *t : g->v) v.push_back(t->data);
    const int64_t p = g->prefix_iter >= 0 ? (int64_t) g->prefix_tokens.size() : 0;
    for (size_t il = 0; p > 0 && il < g->layers.size(); il++) {
        k.push_back(g->prefix_kv.k[il].data());
        kv.push_back(g->prefix_kv.v[il].data());
    }
    return opt_entries(g, p, m, v, g->prefix_tokens.data(), k, kv);
}

// gguf_in is a GGUF file open to read its tensors.
struct gguf_in {
    gguf_context *gg = nullptr;
    ggml_context *meta = nullptr;
    FILE *f = nullptr;
    ~gguf_in() {
        if (f) fclose(f);
        if (gg) gguf_free(gg);
        if (meta) ggml_free(meta);
    }

    bool open(const char *path, int32_t *code, std::string *why) {
        gguf_init_params gp = {true, &meta};
        gg = gguf_init_from_file(path, gp);
        if (!gg) {
            *code = LOOP_GT_NOT_GGUF;
            *why = "cannot read the GGUF header";
            return false;
        }
        f = fopen(path, "rb");
        if (!f) {
            *code = LOOP_GT_INTERNAL;
            *why = "cannot open the file";
            return false;
        }
        return true;
    }

    // read checks the tensor e names against e's type and shape and reads
    // its data into dst.
    bool read(const entry &e, void *dst, std::string *why) {
        ggml_tensor *t = ggml_get_tensor(meta, e.name.c_str());
        int64_t id = gguf_find_tensor(gg, e.name.c_str());
        if (!t || id < 0) {
            *why = "no tensor " + e.name + ": a file of another model";
            return false;
        }
        if (t->type != e.type) {
            *why = "tensor " + e.name + " is " + ggml_type_name(t->type) + ", want " + ggml_type_name(e.type);
            return false;
        }
        for (int i = 0; i < 4; i++) {
            if (t->ne[i] != e.ne[i]) {
                *why = "tensor " + e.name + " has the shape " + shape(t->ne) + ", want " + shape(e.ne) + ": a file of another model";
                return false;
            }
        }
        const size_t off = gguf_get_data_offset(gg) + gguf_get_tensor_offset(gg, id);
        if (fseeko(f, (off_t) off, SEEK_SET) != 0 || fread(dst, 1, e.nbytes(), f) != e.nbytes()) {
            *why = "the data of " + e.name + " is cut short: the file is truncated";
            return false;
        }
        return true;
    }

    bool key(const char *k, gguf_type type, int64_t *id, std::string *why) {
        *id = gguf_find_key(gg, k);
        if (*id < 0 || gguf_get_kv_type(gg, *id) != type) {
            *why = std::string(*id < 0 ? "no " : "a mistyped ") + k;
            return false;
        }
        return true;
    }
    bool i64(const char *k, int64_t *v, std::string *why) {
        int64_t id;
        if (!key(k, GGUF_TYPE_INT64, &id, why)) return false;
        *v = gguf_get_val_i64(gg, id);
        return true;
    }
    bool f32(const char *k, float *v, std::string *why) {
        int64_t id;
        if (!key(k, GGUF_TYPE_FLOAT32, &id, why)) return false;
        *v = gguf_get_val_f32(gg, id);
        return true;
    }
};

// opt_meta is an optimizer state's scalars.
struct opt_meta {
    int64_t iter = 0, prefix_iter = -1, prefix = 0; // prefix: the cached prefix's tokens
    float alpha = 0, beta1 = 0, beta2 = 0, eps = 0, wd = 0;
};

// read_meta reads and checks the scalars of an optimizer state file for
// g: its format, AdamW's parameters (those of g's recipe) and the counts.
bool read_meta(gguf_in &in, const loop_gt *g, opt_meta *om, std::string *why) {
    int64_t id = gguf_find_key(in.gg, kFormat);
    if (id < 0) {
        *why = std::string("not an optimizer state (no ") + kFormat + ")";
        return false;
    }
    if (gguf_get_kv_type(in.gg, id) != GGUF_TYPE_UINT32 || gguf_get_val_u32(in.gg, id) != kFormatVersion) {
        *why = std::string("an optimizer state of another format (") + kFormat + ", want 1)";
        return false;
    }
    if (!in.key(kType, GGUF_TYPE_STRING, &id, why)) return false;
    if (std::string(gguf_get_val_str(in.gg, id)) != "adamw") {
        *why = std::string("the state of optimizer ") + gguf_get_val_str(in.gg, id) + ", want adamw";
        return false;
    }
    if (!in.i64(kIter, &om->iter, why) || !in.i64(kPrefixIter, &om->prefix_iter, why) || !in.f32(kAlpha, &om->alpha, why) ||
        !in.f32(kBeta1, &om->beta1, why) || !in.f32(kBeta2, &om->beta2, why) || !in.f32(kEps, &om->eps, why) ||
        !in.f32(kWd, &om->wd, why)) {
        return false;
    }
    if (om->iter < 0 || om->prefix_iter < -1 || om->prefix_iter > om->iter || !(om->alpha > 0) || std::isinf(om->alpha)) {
        *why = "the step counts or the learning rate are out of range";
        return false;
    }
    const auto &p = g->pars.adamw;
    const struct {
        const char *what;
        float file, ours;
    } pars[] = {{"beta1", om->beta1, p.beta1}, {"beta2", om->beta2, p.beta2}, {"eps", om->eps, p.eps}, {"weight decay", om->wd, p.wd}};
    for (const auto &x : pars) {
        if (x.file != x.ours) {
            *why = std::string("AdamW's ") + x.what + " is " + std::to_string(x.file) + " in the file, " + std::to_string(x.ours) +
                   " in this trainer";
            return false;
        }
    }
    if (om->prefix_iter >= 0) {
        ggml_tensor *t = ggml_get_tensor(in.meta, "prefix.tokens");
        if (!t || t->ne[0] < 1 || t->ne[0] > 32768) { // a prefix is shorter than the longest window
            *why = "no usable tensor prefix.tokens";
            return false;
        }
        om->prefix = t->ne[0];
    }
    const int64_t want = 2 * (int64_t) g->weights.size() + (om->prefix > 0 ? 1 + 2 * (int64_t) g->layers.size() : 0);
    if (gguf_get_n_tensors(in.gg) != want) {
        *why = "the file has " + std::to_string(gguf_get_n_tensors(in.gg)) + " tensors, this model's state " + std::to_string(want) +
               ": a state of another model";
        return false;
    }
    return true;
}

bool write_opt(loop_gt *g, const char *path, std::string *why) {
    std::vector<entry> es = live_entries(g);
    for (const entry &e : es) {
        if (e.name.size() >= GGML_MAX_NAME) {
            *why = "the name " + e.name + " is too long for a GGUF tensor";
            return false;
        }
    }
    ggml_init_params ip = {(es.size() + 1) * ggml_tensor_overhead(), nullptr, true};
    ggml_context *ctx = ggml_init(ip);
    gguf_context *gg = gguf_init_empty();
    bool ok = ctx && gg;
    if (!ok) *why = "out of memory";
    if (ok) {
        gguf_set_val_u32(gg, kFormat, kFormatVersion);
        gguf_set_val_str(gg, kType, "adamw");
        gguf_set_val_i64(gg, kIter, g->iter);
        gguf_set_val_f32(gg, kAlpha, g->pars.adamw.alpha);
        gguf_set_val_f32(gg, kBeta1, g->pars.adamw.beta1);
        gguf_set_val_f32(gg, kBeta2, g->pars.adamw.beta2);
        gguf_set_val_f32(gg, kEps, g->pars.adamw.eps);
        gguf_set_val_f32(gg, kWd, g->pars.adamw.wd);
        gguf_set_val_i64(gg, kPrefixIter, g->prefix_iter);
        for (const entry &e : es) {
            ggml_tensor *t = ggml_new_tensor(ctx, e.type, 4, e.ne);
            ggml_set_name(t, e.name.c_str());
            t->data = e.data; // host memory: gguf_write_to_file copies it
            gguf_add_tensor(gg, t);
        }
        ok = gguf_write_to_file(gg, path, false);
        if (!ok) *why = "cannot write the file";
    }
    if (gg) gguf_free(gg);
    if (ctx) ggml_free(ctx);
    return ok;
}

// verify_opt reads the file back and compares it with g's state.
bool verify_opt(loop_gt *g, const char *path, std::string *why) {
    gguf_in in;
    int32_t code;
    opt_meta om;
    if (!in.open(path, &code, why) || !read_meta(in, g, &om, why)) return false;
    if (om.iter != g->iter || om.alpha != g->pars.adamw.alpha || om.prefix_iter != g->prefix_iter) {
        *why = "the scalars do not read back as written";
        return false;
    }
    std::vector<char> buf;
    for (const entry &e : live_entries(g)) {
        buf.resize(e.nbytes());
        if (!in.read(e, buf.data(), why)) return false;
        if (memcmp(buf.data(), e.data, buf.size()) != 0) {
            *why = "tensor " + e.name + " does not read back as written";
            return false;
        }
    }
    return true;
}

// read_opt reads the optimizer state of path for g and, when every check
// passes, replaces g's.
bool read_opt(loop_gt *g, const char *path, int32_t *code, std::string *why) {
    gguf_in in;
    opt_meta om;
    if (!in.open(path, code, why)) return false;
    *code = LOOP_GT_INVALID;
    if (!read_meta(in, g, &om, why)) return false;
    const size_t nw = g->weights.size(), nl = g->layers.size();
    std::vector<std::vector<float>> m(nw), v(nw);
    std::vector<void *> mp, vp, kp, kvp;
    for (size_t i = 0; i < nw; i++) {
        m[i].resize(ggml_nelements(g->weights[i]));
        v[i].resize(ggml_nelements(g->weights[i]));
        mp.push_back(m[i].data());
        vp.push_back(v[i].data());
    }
    std::vector<int32_t> tokens(om.prefix);
    host_kv kv;
    for (size_t il = 0; om.prefix > 0 && il < nl; il++) {
        kv.k.emplace_back(prefix_size(g, om.prefix));
        kv.v.emplace_back(prefix_size(g, om.prefix));
        kp.push_back(kv.k.back().data());
        kvp.push_back(kv.v.back().data());
    }
    for (const entry &e : opt_entries(g, om.prefix, mp, vp, tokens.data(), kp, kvp)) {
        if (!in.read(e, e.data, why)) return false;
    }
    for (size_t i = 0; i < nw; i++) {
        memcpy(g->m[i]->data, m[i].data(), ggml_nbytes(g->m[i]));
        memcpy(g->v[i]->data, v[i].data(), ggml_nbytes(g->v[i]));
    }
    g->iter = om.iter;
    g->pars.adamw.alpha = om.alpha;
    g->prefix_iter = om.prefix_iter;
    g->prefix_tokens = std::move(tokens);
    g->prefix_kv = std::move(kv);
    return true;
}

bool read_weights(loop_gt *g, const char *path, int32_t *code, std::string *why) {
    gguf_in in;
    if (!in.open(path, code, why)) return false;
    *code = LOOP_GT_INVALID;
    if (gguf_get_n_tensors(in.gg) != (int64_t) g->weights.size()) {
        *why = "the file has " + std::to_string(gguf_get_n_tensors(in.gg)) + " tensors, the base " +
               std::to_string(g->weights.size()) + ": a file of another model";
        return false;
    }
    std::vector<std::vector<char>> staged(g->weights.size());
    for (size_t i = 0; i < g->weights.size(); i++) {
        ggml_tensor *t = g->weights[i];
        staged[i].resize(ggml_nbytes(t));
        if (!in.read(like(t->name, t, nullptr), staged[i].data(), why)) return false;
    }
    for (size_t i = 0; i < g->weights.size(); i++) memcpy(g->weights[i]->data, staged[i].data(), staged[i].size());
    g->prefix_iter = -1;
    g->prefix_tokens.clear();
    g->prefix_kv = host_kv{};
    return true;
}

} // namespace

extern "C" {

int64_t loop_gt_iter(struct loop_gt *g) { return g->iter; }

bool loop_gt_write_opt(struct loop_gt *g, const char *path, char *err, size_t n) {
    set_err(err, n, "");
    if (!g->octx) {
        set_err(err, n, "no optimizer");
        return false;
    }
    try {
        std::string why;
        if (!write_opt(g, path, &why) || !verify_opt(g, path, &why)) {
            set_err(err, n, why);
            return false;
        }
        return true;
    } catch (const std::exception &e) {
        set_err(err, n, e.what());
    }
    return false;
}

bool loop_gt_read_opt(struct loop_gt *g, const char *path, int32_t *code, char *err, size_t n) {
    set_err(err, n, "");
    *code = LOOP_GT_INTERNAL;
    if (!g->octx) {
        set_err(err, n, "no optimizer");
        return false;
    }
    try {
        std::string why;
        if (!read_opt(g, path, code, &why)) {
            set_err(err, n, why);
            return false;
        }
        *code = LOOP_GT_OK;
        return true;
    } catch (const std::exception &e) {
        *code = LOOP_GT_INTERNAL;
        set_err(err, n, e.what());
    }
    return false;
}

bool loop_gt_read_weights(struct loop_gt *g, const char *path, int32_t *code, char *err, size_t n) {
    set_err(err, n, "");
    *code = LOOP_GT_INTERNAL;
    try {
        std::string why;
        if (!read_weights(g, path, code, &why)) {
            set_err(err, n, why);
            return false;
        }
        *code = LOOP_GT_OK;
        return true;
    } catch (const std::exception &e) {
        *code = LOOP_GT_INTERNAL;
        set_err(err, n, e.what());
    }
    return false;
}

} // extern "C"
