// ggml's AMX buffer type, for a native build on a CPU with AMX (Intel
// Sapphire Rapids and later). There -march=native defines __AMX_INT8__,
// and ggml-cpu.cpp then registers this buffer type for the weights; the
// pinned module's Go package does not compile ggml-cpu/amx/, so without
// this file such a build fails to link. The source is the module's own,
// included through the third_party link, not copied. On other CPUs, and in
// make dist's builds, which do not enable AMX, this file is empty.
#if defined(__AMX_INT8__) && defined(__AVX512VNNI__)
#include "../third_party/ggml/src/ggml-cpu/amx/amx.cpp"
#endif
