package llama

// All cgo directives of the module live in this file.
//
// The llama.cpp, ggml and ggml-cpu sources are compiled by the blank import of
// github.com/ollama/ollama/llama/llama.cpp/src below. Their headers are reached
// through third_party/llama.cpp and third_party/ggml, which are links that
// `make` creates into that module's directory in the module cache. The
// bridge also includes two internal headers, src/llama-grammar.h and
// src/llama-vocab.h: to parse grammars with llama.cpp's parser without its
// printing to stderr, and to mask a grammar's candidates from a table of
// the vocabulary's code points (grammar_mask.cpp, which also reads the
// grammar sampler's private context; TestGrammarMaskMatchesLlama holds its
// masks to llama.cpp's own).
// cpu_amx.cpp and cpu_amx_mmq.cpp compile ggml's AMX kernels, which the
// module's package leaves out, for a native build on a CPU with AMX; they
// need the ggml/src include paths.
//
// Optimisation flags (-O3 -march=native, or one set per CPU level for `make
// dist`, scripts/dist-variants.txt) come from CGO_CFLAGS and CGO_CXXFLAGS,
// which the Makefile sets for every target so that the Go build cache stays
// warm.

/*
#cgo CPPFLAGS: -I${SRCDIR}/../third_party/llama.cpp/include -I${SRCDIR}/../third_party/llama.cpp/src -I${SRCDIR}/../third_party/ggml/include
#cgo CPPFLAGS: -I${SRCDIR}/../third_party/ggml/src -I${SRCDIR}/../third_party/ggml/src/ggml-cpu
#cgo CXXFLAGS: -std=c++17
#cgo linux LDFLAGS: -ldl -lm
*/
import "C"

import _ "github.com/ollama/ollama/llama/llama.cpp/src"
