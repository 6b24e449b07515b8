// bridge.h declares loop's own C helpers around llama.cpp: the callbacks that
// llama.cpp calls (log, load progress, abort) and exception-safe wrappers for
// the C API calls whose C++ implementation can throw.
#ifndef LOOP_BRIDGE_H
#define LOOP_BRIDGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "llama.h"
#include "gguf.h"
#include "ggml-cpu.h"
#include "ggml-opt.h"

#ifdef __cplusplus
extern "C" {
#endif

// loop_install_log routes llama.cpp and ggml logs to the Go logger, each
// record tagged with loop_thread_id of the thread that logged it.
void loop_install_log(void);

// loop_thread_id returns a number that identifies the calling OS thread for
// as long as it lives.
uint64_t loop_thread_id(void);

// loop_model_params_set_progress installs the load-progress callback; handle
// is a cgo.Handle of the Go progress state.
void loop_model_params_set_progress(struct llama_model_params *p, uintptr_t handle);

// loop_abort_flag_new allocates a flag that the abort callback reads (NULL
// when out of memory); the Go side stores 1 into it to abort a running
// llama_decode.
int32_t *loop_abort_flag_new(void);
void loop_set_abort(struct llama_context *ctx, int32_t *flag);

// loop_attach_threadpools gives ctx persistent thread pools of n threads
// for generation and n_batch for prompt processing (one pool when they are
// equal), as llama-bench does: without them ggml starts and joins its
// threads for every graph, once per generated token. It returns false when
// a pool cannot be made; loop_free_threadpools frees them after llama_free.
// Threads of a pool busy-wait for work when poll is set (ggml's default
// poll level, 50), and sleep at once otherwise.
bool loop_attach_threadpools(struct llama_context *ctx, int32_t n, int32_t n_batch, bool poll,
                             struct ggml_threadpool **tp, struct ggml_threadpool **tp_batch);
void loop_free_threadpools(struct ggml_threadpool *tp, struct ggml_threadpool *tp_batch);

// loop_batch_init allocates a batch like llama_batch_init, but checks every
// allocation: it returns false, with *b zeroed, when memory runs out.
// loop_batch_free frees it.
bool loop_batch_init(struct llama_batch *b, int32_t n_tokens, int32_t n_seq_max);
void loop_batch_free(struct llama_batch *b);

// loop_batch_set writes token i of a batch made by loop_batch_init.
void loop_batch_set(struct llama_batch *b, int32_t i, llama_token tok, llama_pos pos,
                    const llama_seq_id *seqs, int32_t n_seqs, bool logits);

// Exception-safe wrappers. Each returns its C API result and writes the
// message of a caught C++ exception into err (empty when none).
int32_t loop_decode(struct llama_context *ctx, struct llama_batch batch, char *err, size_t n);
int32_t loop_tokenize(const struct llama_vocab *vocab, const char *text, int32_t len,
                      llama_token *tokens, int32_t max, bool add_special, bool parse_special,
                      char *err, size_t n);

// loop_sampler_init_grammar parses gbnf with llama.cpp's parser first,
// catching its errors into err instead of letting it print them to stderr,
// and only then builds the grammar sampler (lazy with the trigger patterns
// and tokens when lazy is set). vocab may be NULL to check a grammar alone.
struct llama_sampler *loop_sampler_init_grammar(const struct llama_vocab *vocab, const char *gbnf,
                                                const char *root, bool lazy, const char **patterns,
                                                size_t n_patterns, const llama_token *tokens,
                                                size_t n_tokens, char *err, size_t n);
bool loop_sampler_accept(struct llama_sampler *s, llama_token tok, char *err, size_t n);
// loop_sampler_apply applies s to cur. A grammar sampler's mask is the one
// llama.cpp computes, made from a per-vocabulary table of the tokens' code
// points and only for the candidates whose first code point the grammar
// could accept (grammar_mask.h); loop_sampler_apply_llama runs llama.cpp's
// own code only, the reference the table is tested against.
bool loop_sampler_apply(struct llama_sampler *s, llama_token_data_array *cur, char *err, size_t n);
bool loop_sampler_apply_llama(struct llama_sampler *s, llama_token_data_array *cur, char *err, size_t n);

// loop_grammar_forced writes to buf, up to max bytes, the text that every
// way through the grammar sampler g writes next (see grammar_mask.h) and
// returns its length, or -1 with err set on a C++ exception.
int32_t loop_grammar_forced(struct llama_sampler *g, char *buf, int32_t max, char *err, size_t n);

// loop_grammar_forget drops the grammar mask's table of vocab; call it
// before the model that holds vocab is freed.
void loop_grammar_forget(const struct llama_vocab *vocab);

// loop_sampler_allows reports whether s keeps token tok when applied to a
// single candidate: the check that must pass before a grammar sampler may
// accept tok, since llama.cpp aborts the process on a token the grammar rejects.
bool loop_sampler_allows(struct llama_sampler *s, llama_token tok);

// loop_chain_sample samples from the logits of output idx with s and
// accepts the token, like llama_sampler_sample, but reports a missing
// selection, a token no grammar allows, or a C++ exception as an error
// instead of aborting. buf holds n_vocab candidates. grammars lists grammar
// samplers inside s; each must allow the token before it is accepted.
llama_token loop_chain_sample(struct llama_sampler *s, struct llama_context *ctx, int32_t idx,
                              llama_token_data *buf, int32_t n_vocab,
                              struct llama_sampler **grammars, int32_t n_grammars,
                              char *err, size_t n);

// Grammar sampling modes of loop_sample_grammar.
enum loop_grammar_mode {
    LOOP_GRAMMAR_EXACT = 0,           // grammar mask, then the chain; the mask checked lazily
    LOOP_GRAMMAR_FIRST = 1,           // grammar over every candidate, then the chain
    LOOP_GRAMMAR_REJECTION_FIRST = 2, // the chain alone, the grammar only on a rejection
};

// The stage that follows the per-token stages of a chain, for the exact mode.
enum loop_grammar_cut {
    LOOP_CUT_NONE = 0,   // a stage that needs every allowed candidate: mask them all
    LOOP_CUT_TOP_K = 1,  // the k best allowed candidates
    LOOP_CUT_MIN_P = 2,  // allowed candidates within p of the best allowed one, at least min_keep
    LOOP_CUT_GREEDY = 3, // the best allowed candidate
};

// loop_grammar_plan is how loop_sample_grammar may run the chain in the
// exact mode: its first n_pre samplers change each candidate's logit on its
// own (bias, penalties, DRY, a positive temperature) or do nothing, so they
// commute with the grammar's mask; the sampler after them is the cut.
struct loop_grammar_plan {
    int32_t n_pre;
    int32_t cut;
    int32_t k;
    float p;
    int32_t min_keep;
    int32_t max_checks; // candidates checked one by one before masking them all
};

// loop_sample_grammar samples from output idx with the chain s under the
// grammar sampler g (which is not part of s) and accepts the token in both.
// In the exact mode the result has the distribution of the grammar's mask
// followed by the chain: the per-token stages run first, then candidates are
// checked one by one in descending logit until the cut is determined, and
// only a stage that needs the whole allowed set masks every candidate.
// A plan whose max_checks is 0 masks every candidate at once.
// *checked counts the candidates checked one by one; *rejected is set when
// rejection-first had to resample; after the exact mode's mask of every
// candidate under a top-k cut, *allowed is how many candidates it left,
// counted up to k; otherwise -1.
llama_token loop_sample_grammar(struct llama_sampler *s, struct llama_sampler *g, struct llama_context *ctx,
                                int32_t idx, llama_token_data *buf, int32_t n_vocab, int32_t mode,
                                struct loop_grammar_plan plan, bool *rejected, int32_t *checked,
                                int32_t *allowed, char *err, size_t n);

// loop_gguf_open reads the metadata of a GGUF file without its tensor data.
struct gguf_context *loop_gguf_open(const char *path);

#ifdef __cplusplus
}
#endif

#endif
