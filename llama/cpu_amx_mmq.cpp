// ggml's AMX matrix kernels, which the buffer type of cpu_amx.cpp uses; see
// there. Empty unless the build enables AMX.
#if defined(__AMX_INT8__) && defined(__AVX512VNNI__)
#include "../third_party/ggml/src/ggml-cpu/amx/mmq.cpp"
#endif
