// grammar_mask.h declares the bridge's fast grammar mask (grammar_mask.cpp).
#ifndef LOOP_GRAMMAR_MASK_H
#define LOOP_GRAMMAR_MASK_H

#include "bridge.h"

// grammar_mask masks cur under the llama.cpp grammar sampler s exactly as
// llama_sampler_apply would, and returns true; it returns false, with cur
// untouched, when s is not a grammar sampler or its state needs llama.cpp's
// own mask (an open UTF-8 sequence). It may throw what llama.cpp throws.
bool grammar_mask(struct llama_sampler *s, llama_token_data_array *cur);

// grammar_forced writes to buf, up to max bytes of UTF-8, the text that
// every way through the llama.cpp grammar sampler s writes next from its
// state now, and returns its length: 0 where the next character is a
// choice, where the grammar may end, for a lazy grammar still waiting, a
// state inside a multi-byte character, or a sampler that is not a
// grammar. The grammar's state is left as it was.
int32_t grammar_forced(struct llama_sampler *s, char *buf, int32_t max);

#endif
