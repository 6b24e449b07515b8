// graph.h declares loop's own training graph of the qwen2 architecture
// (graph.cpp): the base model's F32 weights in a CPU backend buffer, a
// forward graph built from ggml ops that all have a backward pass (no KV
// cache), and ggml-opt's AdamW over every weight. See graph.go.
#ifndef LOOP_GRAPH_H
#define LOOP_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// loop_gt_hparams are the hyper-parameters read from the GGUF metadata.
struct loop_gt_hparams {
    int32_t n_embd, n_layer, n_head, n_head_kv, n_ff, n_ctx_train, n_vocab;
    float eps, freq_base;
    bool tied; // no output.weight: the output is token_embd.weight
};

// Error classes of loop_gt_open, mapped to the Go sentinels.
enum loop_gt_err {
    LOOP_GT_OK = 0,
    LOOP_GT_NOT_GGUF = 1,  // not a readable GGUF file
    LOOP_GT_INVALID = 2,   // a GGUF file this graph cannot train
    LOOP_GT_INTERNAL = 3,  // out of memory, an I/O error or a C++ exception
};

struct loop_gt;

// loop_gt_open reads the hyper-parameters and every tensor of a qwen2 GGUF
// file with F32 tensors into a CPU backend buffer. It returns NULL with the
// class in *code and the reason in err.
struct loop_gt *loop_gt_open(const char *path, int32_t threads, struct loop_gt_hparams *hp, int32_t *code,
                             char *err, size_t n);
void loop_gt_free(struct loop_gt *g);

// loop_gt_logits runs the forward graph on n tokens at positions 0..n-1
// and writes n rows of n_vocab logits into out. Tokens are checked against
// the vocabulary by the caller.
bool loop_gt_logits(struct loop_gt *g, const int32_t *tokens, int32_t n, float *out, char *err, size_t n_err);

// loop_gt_opt_init makes the AdamW state of every weight (once) and marks
// the weights as trained.
bool loop_gt_opt_init(struct loop_gt *g, float lr, float wd, char *err, size_t n);

// loop_gt_window evaluates (train false) or trains on one window: inputs
// tokens[0..n), labels[0..n) the tokens to predict, mask[i] != 0 where
// position i adds to the loss. *loss is the mean cross-entropy over the
// masked positions. A window without a masked position is neither run nor
// trained on (*loss 0). With prefix > 0, the first prefix positions (none
// of them masked) are computed once, forward only, and the rest of the
// window attends to their keys and values as constants: the loss is the
// same, but no gradient flows through the prefix.
bool loop_gt_window(struct loop_gt *g, const int32_t *tokens, const int32_t *labels, const uint8_t *mask,
                    int32_t n, int32_t prefix, bool train, double *loss, char *err, size_t n_err);

// loop_gt_grad_check compares the gradient of the loss of tokens[0..n)
// predicting labels (at the positions where mask is set; every position
// when mask is null) with respect to the named weight with
// a finite difference: *norm is the gradient's norm, *directional the
// loss's slope along the gradient measured with steps of h; they agree
// when the backward pass is right. The weight is restored.
bool loop_gt_grad_check(struct loop_gt *g, const int32_t *tokens, const int32_t *labels, const uint8_t *mask,
                        int32_t n, const char *name, double h, double *norm, double *directional, char *err, size_t n_err);

// loop_gt_write overwrites the data of every tensor of the GGUF file path,
// a copy of the base file, with the weights in memory, and reads them back.
bool loop_gt_write(struct loop_gt *g, const char *path, char *err, size_t n);

// loop_gt_set_lr sets AdamW's learning rate for the next steps.
void loop_gt_set_lr(struct loop_gt *g, float lr);

// loop_gt_set_threads sets the CPU backend's threads.
void loop_gt_set_threads(struct loop_gt *g, int32_t threads);

// loop_gt_set_prefix_every lets a training window reuse the keys and
// values of the last window's prefix, when it is the same, while fewer
// than steps optimizer steps have changed the weights since they were
// computed; 1 (the default) reuses them only when no step has.
void loop_gt_set_prefix_every(struct loop_gt *g, int32_t steps);

// loop_gt_iter returns the optimizer steps taken (AdamW's iteration count).
int64_t loop_gt_iter(struct loop_gt *g);

// loop_gt_write_opt writes the optimizer state to a new GGUF file at path
// (graph_state.cpp says what it holds) and reads it back. The optimizer
// must exist (loop_gt_opt_init).
bool loop_gt_write_opt(struct loop_gt *g, const char *path, char *err, size_t n);

// loop_gt_read_opt restores the optimizer state from a file that
// loop_gt_write_opt wrote for a graph of the same weights; the optimizer
// must exist. On failure g is unchanged, *code is LOOP_GT_NOT_GGUF for a
// file that does not read as GGUF, LOOP_GT_INVALID for a state of another
// model or recipe or a truncated one, and LOOP_GT_INTERNAL otherwise.
bool loop_gt_read_opt(struct loop_gt *g, const char *path, int32_t *code, char *err, size_t n);

// loop_gt_read_weights replaces the weights with those of the GGUF file
// at path, which must hold tensors of the same names, types and shapes
// (a file loop_gt_write wrote from the same base), and forgets the
// prefix's keys and values, which the old weights computed. On failure g
// is unchanged; *code as for loop_gt_read_opt.
bool loop_gt_read_weights(struct loop_gt *g, const char *path, int32_t *code, char *err, size_t n);

#ifdef __cplusplus
}
#endif

#endif
