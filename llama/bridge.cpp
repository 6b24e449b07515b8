// bridge.cpp holds loop's C++ glue to llama.cpp; see bridge.h.
#include "bridge.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#ifndef _WIN32
#include <unistd.h>
#endif

extern "C" {
// Exported from Go (log.go, model.go).
void loopGoLog(int level, char *text);
bool loopGoProgress(float progress, uintptr_t handle);
}

static void copy_err(char *err, size_t n, const char *msg) {
    if (err == nullptr || n == 0) {
        return;
    }
    strncpy(err, msg, n - 1);
    err[n - 1] = '\0';
}

static void loop_log_cb(enum ggml_log_level level, const char *text, void *) {
    loopGoLog((int) level, (char *) text);
}

void loop_install_log(void) { llama_log_set(loop_log_cb, nullptr); }

static bool loop_progress_cb(float progress, void *ud) {
    return loopGoProgress(progress, (uintptr_t) ud);
}

void loop_model_params_set_progress(struct llama_model_params *p, uintptr_t handle) {
    p->progress_callback = loop_progress_cb;
    p->progress_callback_user_data = (void *) handle;
}

static bool loop_abort_cb(void *data) {
    return __atomic_load_n((int32_t *) data, __ATOMIC_RELAXED) != 0;
}

int32_t *loop_abort_flag_new(void) {
    int32_t *f = (int32_t *) calloc(1, sizeof(int32_t));
    return f;
}

void loop_set_abort(struct llama_context *ctx, int32_t *flag) {
    llama_set_abort_callback(ctx, loop_abort_cb, flag);
}

#define LOOP_TRY(expr, fail)                          \
    if (err != nullptr && n > 0) err[0] = '\0';       \
    try {                                             \
        return expr;                                  \
    } catch (const std::exception &e) {               \
        copy_err(err, n, e.what());                   \
    } catch (...) {                                   \
        copy_err(err, n, "unknown C++ exception");    \
    }                                                 \
    return fail;

int32_t loop_decode(struct llama_context *ctx, struct llama_batch batch, char *err, size_t n) {
    LOOP_TRY(llama_decode(ctx, batch), -3)
}

int32_t loop_tokenize(const struct llama_vocab *vocab, const char *text, int32_t len,
                      llama_token *tokens, int32_t max, bool add_special, bool parse_special,
                      char *err, size_t n) {
    LOOP_TRY(llama_tokenize(vocab, text, len, tokens, max, add_special, parse_special), INT32_MIN)
}

// stderr_capture redirects file descriptor 2 into a temporary file while it
// lives: llama.cpp's grammar parser reports its errors with fprintf(stderr)
// instead of its logger, and loop wants them in the returned error, not on
// the terminal. One capture runs at a time.
static std::mutex stderr_mu;

struct stderr_capture {
    FILE *tmp = nullptr;
    int saved = -1;

    stderr_capture() {
#ifndef _WIN32
        fflush(stderr);
        tmp = tmpfile();
        if (tmp == nullptr) {
            return;
        }
        saved = dup(2);
        if (saved < 0 || dup2(fileno(tmp), 2) < 0) {
            if (saved >= 0) close(saved);
            fclose(tmp);
            tmp = nullptr;
        }
#endif
    }

    std::string finish() {
        std::string out;
#ifndef _WIN32
        if (tmp == nullptr) {
            return out;
        }
        fflush(stderr);
        dup2(saved, 2);
        close(saved);
        rewind(tmp);
        char buf[4096];
        size_t k;
        while ((k = fread(buf, 1, sizeof(buf), tmp)) > 0 && out.size() < 65536) {
            out.append(buf, k);
        }
        fclose(tmp);
        tmp = nullptr;
#endif
        return out;
    }

    ~stderr_capture() { finish(); }
};

static struct llama_sampler *init_grammar(const struct llama_vocab *vocab, const char *gbnf, const char *root,
                                          bool lazy, const char **patterns, size_t n_patterns,
                                          const llama_token *tokens, size_t n_tokens) {
    if (lazy) {
        return llama_sampler_init_grammar_lazy_patterns(vocab, gbnf, root, patterns, n_patterns, tokens, n_tokens);
    }
    return llama_sampler_init_grammar(vocab, gbnf, root);
}

struct llama_sampler *loop_sampler_init_grammar(const struct llama_vocab *vocab, const char *gbnf,
                                                const char *root, bool lazy, const char **patterns,
                                                size_t n_patterns, const llama_token *tokens,
                                                size_t n_tokens, char *err, size_t n) {
    if (err != nullptr && n > 0) err[0] = '\0';
    std::lock_guard<std::mutex> lock(stderr_mu);
    stderr_capture cap;
    struct llama_sampler *s = nullptr;
    try {
        s = init_grammar(vocab, gbnf, root, lazy, patterns, n_patterns, tokens, n_tokens);
    } catch (const std::exception &e) {
        copy_err(err, n, e.what());
    } catch (...) {
        copy_err(err, n, "unknown C++ exception");
    }
    std::string printed = cap.finish();
    if (s == nullptr && err != nullptr && n > 0 && err[0] == '\0') {
        copy_err(err, n, printed.c_str());
    }
    return s;
}

bool loop_sampler_accept(struct llama_sampler *s, llama_token tok, char *err, size_t n) {
    LOOP_TRY((llama_sampler_accept(s, tok), true), false)
}

llama_token loop_sampler_sample(struct llama_sampler *s, struct llama_context *ctx, int32_t idx,
                                char *err, size_t n) {
    LOOP_TRY(llama_sampler_sample(s, ctx, idx), LLAMA_TOKEN_NULL)
}

bool loop_sampler_apply(struct llama_sampler *s, llama_token_data_array *cur, char *err, size_t n) {
    LOOP_TRY((llama_sampler_apply(s, cur), true), false)
}

bool loop_sampler_allows(struct llama_sampler *s, llama_token tok) {
    llama_token_data one = {tok, 0.0f, 0.0f};
    llama_token_data_array cur = {&one, 1, -1, false};
    try {
        llama_sampler_apply(s, &cur);
    } catch (...) {
        return false;
    }
    return cur.size == 1 && std::isfinite(one.logit);
}

// fill_candidates copies the logits of output idx into buf.
static bool fill_candidates(struct llama_context *ctx, int32_t idx, llama_token_data *buf, int32_t n_vocab,
                            char *err, size_t n) {
    const float *logits = llama_get_logits_ith(ctx, idx);
    if (logits == nullptr) {
        copy_err(err, n, "no logits for this batch index");
        return false;
    }
    for (int32_t i = 0; i < n_vocab; i++) {
        buf[i] = {i, logits[i], 0.0f};
    }
    return true;
}

// select_token applies s (after g, when g is set) to cur and returns the
// selected candidate, or LLAMA_TOKEN_NULL with err set.
static llama_token select_token(struct llama_sampler *s, struct llama_sampler *g, llama_token_data_array *cur,
                                char *err, size_t n) {
    try {
        if (g != nullptr) {
            llama_sampler_apply(g, cur);
        }
        llama_sampler_apply(s, cur);
    } catch (const std::exception &e) {
        copy_err(err, n, e.what());
        return LLAMA_TOKEN_NULL;
    }
    if (cur->selected < 0 || cur->selected >= (int64_t) cur->size) {
        copy_err(err, n, "the sampler chain selected no token (end it with greedy, dist or mirostat)");
        return LLAMA_TOKEN_NULL;
    }
    if (!std::isfinite(cur->data[cur->selected].logit)) {
        copy_err(err, n, "grammar: no token is allowed at this point");
        return LLAMA_TOKEN_NULL;
    }
    return cur->data[cur->selected].id;
}

llama_token loop_chain_sample(struct llama_sampler *s, struct llama_context *ctx, int32_t idx,
                              llama_token_data *buf, int32_t n_vocab,
                              struct llama_sampler **grammars, int32_t n_grammars,
                              char *err, size_t n) {
    if (err != nullptr && n > 0) err[0] = '\0';
    if (!fill_candidates(ctx, idx, buf, n_vocab, err, n)) {
        return LLAMA_TOKEN_NULL;
    }
    llama_token_data_array cur = {buf, (size_t) n_vocab, -1, false};
    const llama_token tok = select_token(s, nullptr, &cur, err, n);
    if (tok == LLAMA_TOKEN_NULL) {
        return tok;
    }
    for (int32_t g = 0; g < n_grammars; g++) {
        if (!loop_sampler_allows(grammars[g], tok)) {
            copy_err(err, n, "grammar: the selected token is not allowed (is the grammar after the selecting sampler?)");
            return LLAMA_TOKEN_NULL;
        }
    }
    try {
        llama_sampler_accept(s, tok);
    } catch (const std::exception &e) {
        copy_err(err, n, e.what());
        return LLAMA_TOKEN_NULL;
    }
    return tok;
}

llama_token loop_sample_grammar(struct llama_sampler *s, struct llama_sampler *g, struct llama_context *ctx,
                                int32_t idx, llama_token_data *buf, int32_t n_vocab, bool rejection_first,
                                bool *rejected, char *err, size_t n) {
    if (err != nullptr && n > 0) err[0] = '\0';
    *rejected = false;
    if (!fill_candidates(ctx, idx, buf, n_vocab, err, n)) {
        return LLAMA_TOKEN_NULL;
    }
    llama_token tok = LLAMA_TOKEN_NULL;
    if (rejection_first) {
        llama_token_data_array cur = {buf, (size_t) n_vocab, -1, false};
        tok = select_token(s, nullptr, &cur, err, n);
        if (tok == LLAMA_TOKEN_NULL) {
            return tok;
        }
        if (!loop_sampler_allows(g, tok)) {
            *rejected = true;
            tok = LLAMA_TOKEN_NULL;
            fill_candidates(ctx, idx, buf, n_vocab, err, n);
        }
    }
    if (tok == LLAMA_TOKEN_NULL) {
        llama_token_data_array cur = {buf, (size_t) n_vocab, -1, false};
        tok = select_token(s, g, &cur, err, n);
        if (tok == LLAMA_TOKEN_NULL) {
            return tok;
        }
    }
    try {
        llama_sampler_accept(g, tok);
        llama_sampler_accept(s, tok);
    } catch (const std::exception &e) {
        copy_err(err, n, e.what());
        return LLAMA_TOKEN_NULL;
    }
    return tok;
}

void loop_batch_set(struct llama_batch *b, int32_t i, llama_token tok, llama_pos pos,
                    const llama_seq_id *seqs, int32_t n_seqs, bool logits) {
    b->token[i] = tok;
    b->pos[i] = pos;
    b->n_seq_id[i] = n_seqs;
    for (int32_t s = 0; s < n_seqs; s++) {
        b->seq_id[i][s] = seqs[s];
    }
    b->logits[i] = logits ? 1 : 0;
}

struct gguf_context *loop_gguf_open(const char *path) {
    struct gguf_init_params p = {/*no_alloc =*/true, /*ctx =*/nullptr};
    try {
        return gguf_init_from_file(path, p);
    } catch (...) {
        return nullptr;
    }
}
