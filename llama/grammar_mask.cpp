// grammar_mask.cpp masks a grammar sampler's candidates as llama.cpp's
// llama_grammar_apply_impl does, at a fraction of its cost on a large
// vocabulary; see grammar_mask.h.
//
// llama_grammar_apply_impl turns every candidate's token into text and
// decodes that text to code points, allocating, on every call, then asks
// each parse stack about every candidate's first code point: work in
// proportion to the vocabulary, on every token (engine's
// BenchmarkGrammarNarrow and BenchmarkGrammarSample measure it).
//
// Here the decoding is done once per vocabulary (a token's code points do
// not depend on the grammar's state as long as no UTF-8 sequence is left
// open), and only the candidates whose first code point the top of some
// stack accepts go to llama.cpp's own per-stack check,
// llama_grammar_reject_candidates_for_stack. Every other candidate is one
// that every stack rejects on its first code point, so it is masked
// directly. A top that is not a plain character class (a negated class,
// ".", a token) lets every candidate through to the check.
#include "grammar_mask.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "llama-grammar.h"
#include "llama-vocab.h"
#include "unicode.h"

namespace {

// grammar_sampler_ctx is the context of llama.cpp's grammar sampler
// (struct llama_sampler_grammar in src/llama-sampling.cpp of the pinned
// module, which no header declares). grammar_of checks what it can of it.
struct grammar_sampler_ctx {
    const struct llama_vocab *vocab;
    std::string grammar_str;
    std::string grammar_root;
    struct llama_grammar *grammar;
};

// Kinds of token in a token_table.
enum token_kind : uint8_t {
    TOKEN_TEXT = 0,    // starts with a whole code point: filtered on it
    TOKEN_PARTIAL = 1, // only the start of a UTF-8 sequence: always checked
    TOKEN_EOG = 2,     // end of generation: allowed where a stack is empty
    TOKEN_NONE = 3,    // no text, a NUL first byte or invalid UTF-8: never allowed
};

// token_table is a vocabulary as the grammar reads it: each token's code
// points (0-terminated) and the UTF-8 sequence it leaves open, decoded as
// llama.cpp's decode_utf8 does from a closed state, and the TOKEN_TEXT
// tokens sorted by first code point.
struct token_table {
    std::vector<uint8_t> kind;
    std::vector<uint32_t> offset;
    std::vector<uint32_t> points;
    std::vector<llama_partial_utf8> open;
    std::vector<uint32_t> first; // sorted first code points ...
    std::vector<llama_token> by_first; // ... and their tokens
    std::vector<llama_token> partial;  // the TOKEN_PARTIAL tokens
};

// decode appends the code points of piece, up to its first NUL byte, to
// points with a terminating 0, and returns the sequence left open (n_remain
// -1 for invalid UTF-8, which leaves only the 0): llama.cpp's decode_utf8
// from a closed state.
llama_partial_utf8 decode(const std::string &piece, std::vector<uint32_t> &points) {
    static const int lookup[] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 3, 4};
    const size_t start = points.size();
    const char *pos = piece.c_str();
    uint32_t value = 0;
    int n_remain = 0;
    while (*pos != 0) {
        const uint8_t first_byte = static_cast<uint8_t>(*pos);
        n_remain = lookup[first_byte >> 4] - 1;
        if (n_remain < 0) {
            points.resize(start);
            points.push_back(0);
            return {0, n_remain};
        }
        const uint8_t mask = (1 << (7 - n_remain)) - 1;
        value = first_byte & mask;
        ++pos;
        while (*pos != 0 && n_remain > 0) {
            value = (value << 6) + (static_cast<uint8_t>(*pos) & 0x3F);
            ++pos;
            --n_remain;
        }
        if (n_remain == 0) {
            points.push_back(value);
        }
    }
    points.push_back(0);
    return {value, n_remain};
}

std::shared_ptr<const token_table> build_table(const llama_vocab &vocab) {
    auto t = std::make_shared<token_table>();
    const uint32_t n = vocab.n_tokens();
    t->kind.resize(n);
    t->offset.resize(n);
    t->open.resize(n);
    std::vector<std::pair<uint32_t, llama_token>> firsts;
    for (uint32_t id = 0; id < n; id++) {
        const std::string &piece = vocab.token_to_piece((llama_token) id);
        t->offset[id] = (uint32_t) t->points.size();
        if (vocab.is_eog((llama_token) id)) {
            t->kind[id] = TOKEN_EOG;
            t->points.push_back(0);
            continue;
        }
        if (piece.empty() || piece[0] == 0) {
            t->kind[id] = TOKEN_NONE;
            t->points.push_back(0);
            continue;
        }
        t->open[id] = decode(piece, t->points);
        const uint32_t cp = t->points[t->offset[id]];
        if (cp != 0) {
            t->kind[id] = TOKEN_TEXT;
            firsts.emplace_back(cp, (llama_token) id);
        } else if (t->open[id].n_remain > 0) {
            t->kind[id] = TOKEN_PARTIAL;
            t->partial.push_back((llama_token) id);
        } else {
            t->kind[id] = TOKEN_NONE; // invalid UTF-8: every stack rejects it
        }
    }
    std::sort(firsts.begin(), firsts.end());
    t->first.reserve(firsts.size());
    t->by_first.reserve(firsts.size());
    for (const auto &f : firsts) {
        t->first.push_back(f.first);
        t->by_first.push_back(f.second);
    }
    return t;
}

std::mutex tables_mu;
std::unordered_map<const llama_vocab *, std::shared_ptr<const token_table>> tables;

std::shared_ptr<const token_table> table_for(const llama_vocab *vocab) {
    std::lock_guard<std::mutex> lock(tables_mu);
    auto it = tables.find(vocab);
    if (it != tables.end()) {
        return it->second;
    }
    auto t = build_table(*vocab);
    tables.emplace(vocab, t);
    return t;
}

// grammar_of returns the grammar of a llama.cpp grammar sampler that the
// fast mask can serve, or nullptr.
llama_grammar *grammar_of(const struct llama_sampler *s) {
    if (s == nullptr || s->iface == nullptr || s->iface->name == nullptr || s->ctx == nullptr ||
        std::strcmp(s->iface->name(s), "grammar") != 0) {
        return nullptr;
    }
    const auto *ctx = static_cast<const grammar_sampler_ctx *>(s->ctx);
    llama_grammar *g = ctx->grammar;
    if (g == nullptr || ctx->vocab == nullptr || g->vocab != ctx->vocab || g->o_vocab != nullptr) {
        return nullptr;
    }
    return g;
}

// first_ranges appends to ranges the code points that the character class
// at pos accepts, as llama_grammar_match_char reads it, and returns false
// when the class is not one to filter on (negated, "." or not a class).
bool first_ranges(const llama_grammar_element *pos, std::vector<std::pair<uint32_t, uint32_t>> &ranges) {
    if (pos->type != LLAMA_GRETYPE_CHAR) {
        return false;
    }
    do {
        if (pos[1].type == LLAMA_GRETYPE_CHAR_RNG_UPPER) {
            ranges.emplace_back(pos->value, pos[1].value);
            pos += 2;
        } else if (pos->type == LLAMA_GRETYPE_CHAR_ANY) {
            return false;
        } else {
            ranges.emplace_back(pos->value, pos->value);
            pos += 1;
        }
    } while (pos->type == LLAMA_GRETYPE_CHAR_ALT);
    return true;
}

// fast_mask masks cur under g; it returns false, with cur untouched, where
// the grammar's state needs llama.cpp's own mask.
bool fast_mask(const llama_grammar &g, llama_token_data_array *cur) {
    if (g.awaiting_trigger) {
        return true; // a lazy grammar before its trigger masks nothing
    }
    if (g.partial_utf8.n_remain != 0 || g.stacks.empty()) {
        return false;
    }
    const auto table = table_for(g.vocab);
    const size_t n_vocab = table->kind.size();
    for (size_t i = 0; i < cur->size; i++) {
        if (cur->data[i].id < 0 || (size_t) cur->data[i].id >= n_vocab) {
            return false;
        }
    }
    bool allow_eog = false, every = false;
    std::vector<std::pair<uint32_t, uint32_t>> ranges;
    for (const auto &stack : g.stacks) {
        if (stack.empty()) {
            allow_eog = true;
        } else if (!first_ranges(stack.back(), ranges)) {
            every = true;
        }
    }
    std::vector<uint8_t> pass;
    if (!every) {
        pass.assign(n_vocab, 0);
        // Many stacks often share a class: the ranges are merged first, so
        // that each token is marked once however many stacks there are.
        std::sort(ranges.begin(), ranges.end());
        auto from = table->first.begin();
        for (size_t i = 0; i < ranges.size();) {
            uint32_t lo = ranges[i].first, hi = ranges[i].second;
            for (i++; i < ranges.size() && ranges[i].first <= hi + 1 && hi != UINT32_MAX; i++) {
                hi = std::max(hi, ranges[i].second);
            }
            auto begin = std::lower_bound(from, table->first.end(), lo);
            auto end = std::upper_bound(begin, table->first.end(), hi);
            for (auto it = begin; it != end; ++it) {
                pass[table->by_first[it - table->first.begin()]] = 1;
            }
            from = end;
        }
        for (llama_token id : table->partial) {
            pass[id] = 1;
        }
    }
    llama_grammar_candidates candidates;
    candidates.reserve(every ? cur->size : std::min(cur->size, (size_t) 4096));
    for (size_t i = 0; i < cur->size; i++) {
        const llama_token id = cur->data[i].id;
        switch (table->kind[id]) {
        case TOKEN_EOG:
            if (!allow_eog) {
                cur->data[i].logit = -INFINITY;
            }
            break;
        case TOKEN_NONE:
            cur->data[i].logit = -INFINITY;
            break;
        default:
            if (every || pass[id]) {
                candidates.push_back({i, table->points.data() + table->offset[id], table->open[id], id});
            } else {
                cur->data[i].logit = -INFINITY;
            }
        }
    }
    if (candidates.empty()) {
        return true;
    }
    auto rejects = llama_grammar_reject_candidates_for_stack(g.rules, g.stacks.front(), candidates);
    for (size_t i = 1; i < g.stacks.size(); i++) {
        rejects = llama_grammar_reject_candidates_for_stack(g.rules, g.stacks[i], rejects);
    }
    for (const auto &r : rejects) {
        cur->data[r.index].logit = -INFINITY;
    }
    return true;
}

} // namespace

bool grammar_mask(struct llama_sampler *s, llama_token_data_array *cur) {
    const llama_grammar *g = grammar_of(s);
    return g != nullptr && fast_mask(*g, cur);
}

void loop_grammar_forget(const struct llama_vocab *vocab) {
    std::lock_guard<std::mutex> lock(tables_mu);
    tables.erase(vocab);
}

namespace {

// forced_char returns the character that every parse stack of g must
// match next, or 0: where a stack may end, or one's top is not a single
// character (a class, a range, ".", a negation, a token).
uint32_t forced_char(const llama_grammar &g) {
    uint32_t chr = 0;
    for (const auto &stack : g.stacks) {
        if (stack.empty()) {
            return 0;
        }
        const llama_grammar_element *pos = stack.back();
        if (pos->type != LLAMA_GRETYPE_CHAR || pos[1].type == LLAMA_GRETYPE_CHAR_RNG_UPPER ||
            pos[1].type == LLAMA_GRETYPE_CHAR_ALT || pos->value == 0) {
            return 0;
        }
        if (chr != 0 && pos->value != chr) {
            return 0;
        }
        chr = pos->value;
    }
    return chr;
}

} // namespace

int32_t grammar_forced(struct llama_sampler *s, char *buf, int32_t max) {
    llama_grammar *g = grammar_of(s);
    if (g == nullptr || g->awaiting_trigger || g->partial_utf8.n_remain != 0 || g->stacks.empty()) {
        return 0;
    }
    // The walk advances the grammar's own stacks, character by character,
    // and puts them back on every path out.
    struct restore {
        llama_grammar *g;
        llama_grammar_stacks saved;
        ~restore() { g->stacks = std::move(saved); }
    } r{g, g->stacks};
    int32_t n = 0;
    for (uint32_t chr = forced_char(*g); chr != 0 && chr <= 0x10FFFF; chr = forced_char(*g)) {
        const std::string utf8 = unicode_cpt_to_utf8(chr);
        if (n + (int32_t) utf8.size() > max) {
            break;
        }
        std::memcpy(buf + n, utf8.data(), utf8.size());
        n += (int32_t) utf8.size();
        llama_grammar_accept(g, chr);
    }
    return n;
}
