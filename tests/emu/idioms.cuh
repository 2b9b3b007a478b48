// Device code in a header, as CUDA programs put it: a block-wide sum through a __shared__ array
// declared here (tests/emu/idioms.cu includes it; the rewriter rewrites it with that file).
#pragma once

template <int kThreads>
__device__ float block_sum(float v) {
  __shared__ float warp_sums[kThreads / 32], scratch[1];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int w = 0; w < kThreads / 32; ++w) s += warp_sums[w];
    scratch[0] = s;
  }
  __syncthreads();
  return scratch[0];
}

// A helper that takes a shared tile by reference to its array type.
__device__ inline void fill_tile(float (&tile)[32][33], int r, int c, float v) { tile[r][c] = v; }
