// __half, __half2 and __nv_bfloat16 in kernels on the CPU backend: arithmetic, conversions,
// shuffles across a warp (they are 2 and 4 bytes) and a cooperative-groups reduction of halves.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "compat_half.hpp"

namespace cg = cooperative_groups;

#ifndef COMPAT_NS
#define COMPAT_NS compat_plain
#endif

namespace COMPAT_NS {

__global__ void half_math_kernel(const __half* a, const __half* b, __half* sum, __half* fma_out, __half2* pair,
                                 __nv_bfloat16* bsum, float* back, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  sum[i] = a[i] + b[i];
  fma_out[i] = __hfma(a[i], b[i], __float2half(0.5f));
  pair[i] = __hmul2(__halves2half2(a[i], b[i]), __float2half2_rn(2.0f));
  const __nv_bfloat16 x = __float2bfloat16(__half2float(a[i]));
  bsum[i] = __hadd(x, __float2bfloat16(1.0f));
  const float2 f = __half22float2(__floats2half2_rn(__low2float(pair[i]), __high2float(pair[i])));
  back[i] = f.x - f.y + (__hmax(a[i], b[i]) > __hmin(a[i], b[i]) ? 1000.0f : 0.0f);
}

cudaError_t half_math(const __half* a, const __half* b, __half* sum, __half* fma_out, __half2* pair,
                      __nv_bfloat16* bsum, float* back, int n) {
  half_math_kernel<<<(n + 63) / 64, 64>>>(a, b, sum, fma_out, pair, bsum, back, n);
  return cudaDeviceSynchronize();
}

__global__ void half_shuffle_kernel(__half* out_h, __half2* out_h2, __nv_bfloat16* out_b, float* warp_sum) {
  const unsigned full = 0xffffffffu;
  const int t = threadIdx.x;
  const __half h = __int2half_rn(t);
  out_h[t] = __shfl_xor_sync(full, h, 1);
  const __half2 p = __halves2half2(h, __float2half(-0.5f * t));
  out_h2[t] = __shfl_down_sync(full, p, 3);
  const __nv_bfloat16 b = __float2bfloat16(t * 1.5f);
  out_b[t] = __shfl_sync(full, b, 7);
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  const __half s = cg::reduce(tile, __float2half(0.25f * t), cg::plus<__half>());
  if (tile.thread_rank() == 0) warp_sum[t / 32] = __half2float(s);
}

cudaError_t half_shuffles(__half* out_h, __half2* out_h2, __nv_bfloat16* out_b, float* warp_sum, int threads) {
  half_shuffle_kernel<<<1, threads>>>(out_h, out_h2, out_b, warp_sum);
  return cudaDeviceSynchronize();
}

}  // namespace COMPAT_NS
