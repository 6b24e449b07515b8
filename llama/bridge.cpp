// bridge.cpp holds loop's C++ glue to llama.cpp; see bridge.h.
#include "bridge.h"
#include "grammar_mask.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <vector>

// llama.cpp's own grammar parser, to parse a grammar without its printing
// to stderr (src/llama-grammar.h of the pinned module).
#include "llama-grammar.h"

extern "C" {
// Exported from Go (log.go, model.go).
void loopGoLog(int level, char *text, uint64_t tid);
bool loopGoProgress(float progress, uintptr_t handle);
}

static void copy_err(char *err, size_t n, const char *msg) {
    if (err == nullptr || n == 0) {
        return;
    }
    strncpy(err, msg, n - 1);
    err[n - 1] = '\0';
}

static std::atomic<uint64_t> next_thread_id{1};
static thread_local uint64_t this_thread_id = 0;

uint64_t loop_thread_id(void) {
    if (this_thread_id == 0) {
        this_thread_id = next_thread_id.fetch_add(1);
    }
    return this_thread_id;
}

static void loop_log_cb(enum ggml_log_level level, const char *text, void *) {
    loopGoLog((int) level, (char *) text, loop_thread_id());
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

int32_t *loop_abort_flag_new(void) { return (int32_t *) calloc(1, sizeof(int32_t)); }

void loop_set_abort(struct llama_context *ctx, int32_t *flag) {
    llama_set_abort_callback(ctx, loop_abort_cb, flag);
}

bool loop_attach_threadpools(struct llama_context *ctx, int32_t n, int32_t n_batch, bool poll,
                             struct ggml_threadpool **tp, struct ggml_threadpool **tp_batch) {
    *tp = nullptr;
    *tp_batch = nullptr;
    struct ggml_threadpool_params p = ggml_threadpool_params_default(n);
    if (!poll) p.poll = 0;
    *tp = ggml_threadpool_new(&p);
    if (*tp == nullptr) {
        return false;
    }
    if (n_batch != n) {
        struct ggml_threadpool_params pb = ggml_threadpool_params_default(n_batch);
        if (!poll) pb.poll = 0;
        *tp_batch = ggml_threadpool_new(&pb);
        if (*tp_batch == nullptr) {
            ggml_threadpool_free(*tp);
            *tp = nullptr;
            return false;
        }
    }
    llama_attach_threadpool(ctx, *tp, *tp_batch);
    return true;
}

void loop_free_threadpools(struct ggml_threadpool *tp, struct ggml_threadpool *tp_batch) {
    if (tp_batch != nullptr) ggml_threadpool_free(tp_batch);
    if (tp != nullptr) ggml_threadpool_free(tp);
}

void loop_batch_free(struct llama_batch *b) {
    if (b->seq_id != nullptr) {
        for (int32_t i = 0; b->seq_id[i] != nullptr; i++) {
            free(b->seq_id[i]);
        }
    }
    free(b->token);
    free(b->pos);
    free(b->n_seq_id);
    free(b->seq_id);
    free(b->logits);
    *b = {};
}

bool loop_batch_init(struct llama_batch *b, int32_t n_tokens, int32_t n_seq_max) {
    *b = {};
    if (n_tokens <= 0 || n_seq_max <= 0) {
        return false;
    }
    const size_t nt = (size_t) n_tokens;
    b->token = (llama_token *) malloc(sizeof(llama_token) * nt);
    b->pos = (llama_pos *) malloc(sizeof(llama_pos) * nt);
    b->n_seq_id = (int32_t *) malloc(sizeof(int32_t) * nt);
    b->seq_id = (llama_seq_id **) calloc(nt + 1, sizeof(llama_seq_id *)); // NULL-terminated
    b->logits = (int8_t *) malloc(sizeof(int8_t) * nt);
    bool ok = b->token && b->pos && b->n_seq_id && b->seq_id && b->logits;
    for (size_t i = 0; ok && i < nt; i++) {
        b->seq_id[i] = (llama_seq_id *) malloc(sizeof(llama_seq_id) * (size_t) n_seq_max);
        ok = b->seq_id[i] != nullptr;
    }
    if (!ok) {
        loop_batch_free(b);
    }
    return ok;
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

// skip_space passes the blanks, newlines and # comments that llama.cpp's
// grammar parser allows before the first rule.
static const char *skip_space(const char *p) {
    while (*p) {
        if (*p == '#') {
            while (*p && *p != '\r' && *p != '\n') p++;
        } else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') {
            p++;
        } else {
            break;
        }
    }
    return p;
}

// check_grammar parses gbnf rule by rule with llama.cpp's parser and makes
// the checks llama_grammar_init_impl makes, so that a bad grammar is
// reported here instead of being printed to stderr there.
static bool check_grammar(const struct llama_vocab *vocab, const char *gbnf, const char *root, char *err, size_t n) {
    llama_grammar_parser parser(vocab);
    try {
        const char *pos = skip_space(gbnf);
        while (*pos) {
            pos = parser.parse_rule(pos);
        }
        for (const auto &rule : parser.rules) {
            if (rule.empty()) {
                throw std::runtime_error("Undefined rule");
            }
            for (const auto &elem : rule) {
                if (elem.type != LLAMA_GRETYPE_RULE_REF) continue;
                if (elem.value < parser.rules.size() && !parser.rules[elem.value].empty()) continue;
                for (const auto &kv : parser.symbol_ids) {
                    if (kv.second == elem.value) {
                        throw std::runtime_error("Undefined rule identifier '" + kv.first + "'");
                    }
                }
                throw std::runtime_error("Undefined rule");
            }
        }
    } catch (const std::exception &e) {
        copy_err(err, n, e.what());
        return false;
    } catch (...) {
        copy_err(err, n, "unknown C++ exception");
        return false;
    }
    if (parser.rules.empty()) {
        copy_err(err, n, "the grammar has no rules");
        return false;
    }
    if (parser.symbol_ids.find(root) == parser.symbol_ids.end()) {
        copy_err(err, n, (std::string("the grammar has no rule '") + root + "'").c_str());
        return false;
    }
    return true;
}

struct llama_sampler *loop_sampler_init_grammar(const struct llama_vocab *vocab, const char *gbnf,
                                                const char *root, bool lazy, const char **patterns,
                                                size_t n_patterns, const llama_token *tokens,
                                                size_t n_tokens, char *err, size_t n) {
    if (err != nullptr && n > 0) err[0] = '\0';
    if (!check_grammar(vocab, gbnf, root, err, n)) {
        return nullptr;
    }
    try {
        if (lazy) {
            return llama_sampler_init_grammar_lazy_patterns(vocab, gbnf, root, patterns, n_patterns, tokens, n_tokens);
        }
        return llama_sampler_init_grammar(vocab, gbnf, root);
    } catch (const std::exception &e) {
        copy_err(err, n, e.what());
    } catch (...) {
        copy_err(err, n, "unknown C++ exception");
    }
    return nullptr;
}

bool loop_sampler_accept(struct llama_sampler *s, llama_token tok, char *err, size_t n) {
    LOOP_TRY((llama_sampler_accept(s, tok), true), false)
}

bool loop_sampler_apply(struct llama_sampler *s, llama_token_data_array *cur, char *err, size_t n) {
    LOOP_TRY((grammar_mask(s, cur) || (llama_sampler_apply(s, cur), true)), false)
}

int32_t loop_grammar_forced(struct llama_sampler *g, char *buf, int32_t max, char *err, size_t n) {
    LOOP_TRY(grammar_forced(g, buf, max), -1)
}

bool loop_sampler_apply_llama(struct llama_sampler *s, llama_token_data_array *cur, char *err, size_t n) {
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

// A sampler that is not a chain counts as a chain of itself.
static bool is_chain(const struct llama_sampler *s) { return strcmp(llama_sampler_name(s), "chain") == 0; }
static int32_t stage_count(const struct llama_sampler *s) { return is_chain(s) ? llama_sampler_chain_n(s) : 1; }
static struct llama_sampler *stage(struct llama_sampler *s, int32_t i) {
    return is_chain(s) ? llama_sampler_chain_get(s, i) : s;
}

// apply_stages applies the stages [from, to) of s to cur.
static bool apply_stages(struct llama_sampler *s, int32_t from, int32_t to, llama_token_data_array *cur,
                         char *err, size_t n) {
    try {
        for (int32_t i = from; i < to; i++) {
            llama_sampler_apply(stage(s, i), cur);
        }
    } catch (const std::exception &e) {
        copy_err(err, n, e.what());
        return false;
    } catch (...) {
        copy_err(err, n, "unknown C++ exception");
        return false;
    }
    return true;
}

// mask applies the grammar g to every candidate of cur.
static bool mask(struct llama_sampler *g, llama_token_data_array *cur, char *err, size_t n) {
    return loop_sampler_apply(g, cur, err, n);
}

// selected returns the candidate the stages selected, or LLAMA_TOKEN_NULL
// with err set.
static llama_token selected(const llama_token_data_array *cur, char *err, size_t n) {
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

// select_token applies s (after the grammar g, when g is set) to cur and
// returns the selected candidate.
static llama_token select_token(struct llama_sampler *s, struct llama_sampler *g, llama_token_data_array *cur,
                                char *err, size_t n) {
    if (g != nullptr && !mask(g, cur, err, n)) {
        return LLAMA_TOKEN_NULL;
    }
    if (!apply_stages(s, 0, stage_count(s), cur, err, n)) {
        return LLAMA_TOKEN_NULL;
    }
    return selected(cur, err, n);
}

// accept_both accepts tok in the grammar g (when set) and in s.
static bool accept_both(struct llama_sampler *s, struct llama_sampler *g, llama_token tok, char *err, size_t n) {
    if (g != nullptr && !loop_sampler_accept(g, tok, err, n)) {
        return false;
    }
    return loop_sampler_accept(s, tok, err, n);
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
    return loop_sampler_accept(s, tok, err, n) ? tok : LLAMA_TOKEN_NULL;
}

// walk_cut collects, in descending logit, the allowed candidates that the
// plan's cut keeps from the masked candidates: the first k, the first one,
// or those within p of the best (at least min_keep). It returns false when
// more than max_checks candidates had to be checked.
static bool walk_cut(struct llama_sampler *g, llama_token_data_array *cur, const struct loop_grammar_plan &plan,
                     std::vector<llama_token_data> &kept, int32_t *checked) {
    auto desc = [](const llama_token_data &a, const llama_token_data &b) { return a.logit > b.logit; };
    llama_token_data *data = cur->data;
    const size_t size = cur->size;
    const size_t need = plan.cut == LOOP_CUT_TOP_K ? (size_t) plan.k
                      : plan.cut == LOOP_CUT_GREEDY ? 1 : (size_t) std::max(plan.min_keep, 1);
    float threshold = -INFINITY;
    size_t sorted_to = 0, block = std::max<size_t>(64, 2 * need);
    for (size_t i = 0; i < size; i++) {
        if (i == sorted_to) {
            const size_t next = std::min(size, sorted_to + block);
            std::partial_sort(data + sorted_to, data + next, data + size, desc);
            sorted_to = next;
            block *= 2;
        }
        const llama_token_data c = data[i];
        if (!(c.logit > -INFINITY)) {
            break; // only masked-out candidates are left
        }
        if (plan.cut == LOOP_CUT_MIN_P && !kept.empty() && c.logit < threshold && kept.size() >= need) {
            break;
        }
        if (++*checked > plan.max_checks) {
            return false;
        }
        if (!loop_sampler_allows(g, c.id)) {
            continue;
        }
        if (kept.empty()) {
            threshold = c.logit + logf(plan.p);
        }
        kept.push_back(c);
        if (plan.cut != LOOP_CUT_MIN_P && kept.size() == need) {
            break;
        }
    }
    return true;
}

// sample_exact samples with the distribution of "grammar mask, then the
// chain" (see loop_grammar_plan).
static llama_token sample_exact(struct llama_sampler *s, struct llama_sampler *g, llama_token_data_array *cur,
                                const struct loop_grammar_plan &plan, int32_t *checked, int32_t *allowed,
                                char *err, size_t n) {
    const int32_t n_stages = stage_count(s);
    if (!apply_stages(s, 0, plan.n_pre, cur, err, n)) {
        return LLAMA_TOKEN_NULL;
    }
    std::vector<llama_token_data> kept;
    if (plan.cut != LOOP_CUT_NONE && plan.max_checks > 0 && walk_cut(g, cur, plan, kept, checked)) {
        if (kept.empty()) {
            copy_err(err, n, "grammar: no token is allowed at this point");
            return LLAMA_TOKEN_NULL;
        }
        llama_token_data_array few = {kept.data(), kept.size(), -1, true};
        if (!apply_stages(s, plan.n_pre, n_stages, &few, err, n)) {
            return LLAMA_TOKEN_NULL;
        }
        return selected(&few, err, n);
    }
    if (!mask(g, cur, err, n)) {
        return LLAMA_TOKEN_NULL;
    }
    if (plan.cut == LOOP_CUT_TOP_K) {
        *allowed = 0;
        for (size_t i = 0; i < cur->size && *allowed < plan.k; i++) {
            *allowed += cur->data[i].logit > -INFINITY ? 1 : 0;
        }
    }
    if (!apply_stages(s, plan.n_pre, n_stages, cur, err, n)) {
        return LLAMA_TOKEN_NULL;
    }
    return selected(cur, err, n);
}

llama_token loop_sample_grammar(struct llama_sampler *s, struct llama_sampler *g, struct llama_context *ctx,
                                int32_t idx, llama_token_data *buf, int32_t n_vocab, int32_t mode,
                                struct loop_grammar_plan plan, bool *rejected, int32_t *checked,
                                int32_t *allowed, char *err, size_t n) {
    if (err != nullptr && n > 0) err[0] = '\0';
    *rejected = false;
    *checked = 0;
    *allowed = -1;
    if (!fill_candidates(ctx, idx, buf, n_vocab, err, n)) {
        return LLAMA_TOKEN_NULL;
    }
    llama_token_data_array cur = {buf, (size_t) n_vocab, -1, false};
    llama_token tok = LLAMA_TOKEN_NULL;
    switch (mode) {
    case LOOP_GRAMMAR_EXACT:
        tok = sample_exact(s, g, &cur, plan, checked, allowed, err, n);
        break;
    case LOOP_GRAMMAR_REJECTION_FIRST:
        tok = select_token(s, nullptr, &cur, err, n);
        if (tok == LLAMA_TOKEN_NULL || loop_sampler_allows(g, tok)) {
            break;
        }
        *rejected = true;
        if (!fill_candidates(ctx, idx, buf, n_vocab, err, n)) {
            return LLAMA_TOKEN_NULL;
        }
        cur = {buf, (size_t) n_vocab, -1, false};
        tok = select_token(s, g, &cur, err, n);
        break;
    default:
        tok = select_token(s, g, &cur, err, n);
    }
    if (tok == LLAMA_TOKEN_NULL || !accept_both(s, g, tok, err, n)) {
        return LLAMA_TOKEN_NULL;
    }
    return tok;
}

struct gguf_context *loop_gguf_open(const char *path) {
    struct gguf_init_params p = {/*no_alloc =*/true, /*ctx =*/nullptr};
    try {
        return gguf_init_from_file(path, p);
    } catch (...) {
        return nullptr;
    }
}
