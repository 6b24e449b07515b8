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

#ifdef __cplusplus
extern "C" {
#endif

// loop_install_log routes llama.cpp and ggml logs to the Go logger.
void loop_install_log(void);

// loop_model_params_set_progress installs the load-progress callback; handle
// is a cgo.Handle of the Go progress state.
void loop_model_params_set_progress(struct llama_model_params *p, uintptr_t handle);

// loop_abort_flag allocates a flag that loop_abort_cb reads; the Go side
// stores 1 into it to abort a running llama_decode.
int32_t *loop_abort_flag_new(void);
void loop_set_abort(struct llama_context *ctx, int32_t *flag);

// Exception-safe wrappers. Each returns its C API result and writes the
// message of a caught C++ exception into err (empty when none).
int32_t loop_decode(struct llama_context *ctx, struct llama_batch batch, char *err, size_t n);
int32_t loop_tokenize(const struct llama_vocab *vocab, const char *text, int32_t len,
                      llama_token *tokens, int32_t max, bool add_special, bool parse_special,
                      char *err, size_t n);
struct llama_sampler *loop_sampler_init_grammar(const struct llama_vocab *vocab, const char *gbnf,
                                                const char *root, bool lazy, const char **patterns,
                                                size_t n_patterns, const llama_token *tokens,
                                                size_t n_tokens, char *err, size_t n);
bool loop_sampler_accept(struct llama_sampler *s, llama_token tok, char *err, size_t n);
llama_token loop_sampler_sample(struct llama_sampler *s, struct llama_context *ctx, int32_t idx,
                                char *err, size_t n);
bool loop_sampler_apply(struct llama_sampler *s, llama_token_data_array *cur, char *err, size_t n);

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

// loop_sample_grammar samples from output idx with the chain s under the
// grammar sampler g (which is not part of s) and accepts the token in both.
// With rejection_first it samples from s alone, checks that one token
// against g, and only when g rejects it applies g to every candidate and
// samples again, setting *rejected; otherwise g is applied to every candidate
// first, as llama.cpp's common sampler does.
llama_token loop_sample_grammar(struct llama_sampler *s, struct llama_sampler *g, struct llama_context *ctx,
                                int32_t idx, llama_token_data *buf, int32_t n_vocab, bool rejection_first,
                                bool *rejected, char *err, size_t n);

// loop_batch_set writes token i of a batch allocated by llama_batch_init.
void loop_batch_set(struct llama_batch *b, int32_t i, llama_token tok, llama_pos pos,
                    const llama_seq_id *seqs, int32_t n_seqs, bool logits);

// loop_gguf_open reads the metadata of a GGUF file without its tensor data.
struct gguf_context *loop_gguf_open(const char *path);

#ifdef __cplusplus
}
#endif

#endif
