// Host entry points of tests/emu/half_types.cu, built plain and instrumented (COMPAT_NS names the copy).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define EMU_COMPAT_HALF_API(ns)                                                                                  \
  namespace ns {                                                                                                 \
  /* sum = a + b, fma_out = a * b + 0.5, pair = (2a, 2b), bsum = bf16(a) + 1, back = 2a - 2b (+1000 if a != b) */ \
  cudaError_t half_math(const __half* a, const __half* b, __half* sum, __half* fma_out, __half2* pair,          \
                        __nv_bfloat16* bsum, float* back, int n);                                                \
  /* out_h[t] = h(t ^ 1), out_h2[t] = (t + 3, -(t + 3) / 2) within the warp, out_b[t] = 1.5 * (warp's lane 7),  \
     warp_sum[w] = the half sum of 0.25 t over warp w */                                                         \
  cudaError_t half_shuffles(__half* out_h, __half2* out_h2, __nv_bfloat16* out_b, float* warp_sum, int threads); \
  }
EMU_COMPAT_HALF_API(compat_plain)
EMU_COMPAT_HALF_API(compat_instr)
