// Exercise 04, reference solution: a numerically stable softmax of every row.
//
// One pass reads the row and keeps, per thread, an online maximum m and a sum s of exp(x - m):
// when a larger element arrives, the sum so far is rescaled by exp(old m - new m). The threads
// of a row then merge their (m, s) pairs the same way (shuffles, then shared memory across
// warps), and a write pass stores exp(x - m) / s. Nothing is ever exp() of a positive number,
// so nothing overflows, and the row's largest element contributes exp(0) = 1, so s >= 1.
//
// A row is a warp's (rows up to kWarpCols columns) or a block's of kBlockThreads. Each thread
// keeps the first kCache of its elements in registers between the passes (a row of 8192 floats
// is read from memory once); elements past those are read again in the write pass. When cols
// is a multiple of 4 and the pointers are 16-byte aligned, elements move as float4s.
#include "softmax.cuh"

#include <cmath>
#include <cstdint>

namespace solution {

namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarpCols = 1024;      // rows up to this long: a warp per row
constexpr int kBlockThreads = 512;   // longer rows: a block of this many threads per row
constexpr int kWarpsPerBlock = 8;    // warp-per-row blocks: 8 rows each

// A running maximum and the sum of exp(x - m) over the elements seen.
struct MaxSum {
  float m, s;
};

__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return a;  // neither has seen an element
  return {m, a.s * expf(a.m - m) + b.s * expf(b.m - m)};
}

__device__ __forceinline__ float largest(float x) { return x; }
__device__ __forceinline__ float largest(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }
__device__ __forceinline__ float exp_sum(float x, float m) { return expf(x - m); }
__device__ __forceinline__ float exp_sum(float4 v, float m) {
  return expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
}
__device__ __forceinline__ float scaled(float x, float m, float inv) { return expf(x - m) * inv; }
__device__ __forceinline__ float4 scaled(float4 v, float m, float inv) {
  return make_float4(expf(v.x - m) * inv, expf(v.y - m) * inv, expf(v.z - m) * inv, expf(v.w - m) * inv);
}

// Adds a float or a float4 of the row to a thread's running (m, s).
template <class V>
__device__ __forceinline__ void add(MaxSum& p, V v) {
  const float m = fmaxf(p.m, largest(v));
  p.s = p.s * expf(p.m - m) + exp_sum(v, m);  // p.m = -inf the first time: 0 * 0
  p.m = m;
}

__device__ __forceinline__ MaxSum warp_merge(MaxSum p) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    p = merge(p, {__shfl_xor_sync(kFullMask, p.m, offset), __shfl_xor_sync(kFullMask, p.s, offset)});
  return p;  // in every lane
}

}  // namespace

//! [kernel]
// kGroup threads per row (32: a warp; kBlockThreads: the block); V = float or float4; each
// thread's items are i = t, t + kGroup, ... below n (items per row); the first kCache stay in registers.
template <int kGroup, int kCache, class V>
__global__ void __launch_bounds__(kGroup == 32 ? 32 * kWarpsPerBlock : kGroup)
    softmax_kernel(const V* __restrict__ in, V* __restrict__ out, int rows, int n) {
  __shared__ MaxSum partial[kGroup / 32];
  const int t = threadIdx.x % kGroup;
  const int r = kGroup == 32 ? blockIdx.x * kWarpsPerBlock + threadIdx.x / 32 : blockIdx.x;
  if (r >= rows) return;  // a whole warp (warp per row) or the whole block
  auto row_in = in + std::int64_t(r) * n;
  auto row_out = out + std::int64_t(r) * n;

  // Pass 1: the online maximum and sum of this thread's items.
  V cache[kCache];
  MaxSum p{-INFINITY, 0.0f};
#pragma unroll
  for (int j = 0; j < kCache; ++j) {
    const int i = t + j * kGroup;
    if (i < n) {
      cache[j] = row_in[i];
      add(p, cache[j]);
    }
  }
  for (int i = t + kCache * kGroup; i < n; i += kGroup) add(p, row_in[i]);

  // The row's (m, s): merged over the warp, then over the block's warps.
  p = warp_merge(p);
  if (kGroup > 32) {
    if (t % 32 == 0) partial[t / 32] = p;
    __syncthreads();
    p = partial[0];
#pragma unroll
    for (int w = 1; w < kGroup / 32; ++w) p = merge(p, partial[w]);
  }

  // Pass 2: write exp(x - m) / s.
  const float inv = 1.0f / p.s;
#pragma unroll
  for (int j = 0; j < kCache; ++j) {
    const int i = t + j * kGroup;
    if (i < n) row_out[i] = scaled(cache[j], p.m, inv);
  }
  for (int i = t + kCache * kGroup; i < n; i += kGroup) row_out[i] = scaled(row_in[i], p.m, inv);
}
//! [kernel]

//! [launch]
namespace {

template <class V, int kWidth>
void launch(const V* in, V* out, int rows, int cols) {
  const int n = cols / kWidth;  // items per row
  if (cols <= kWarpCols) {
    const int blocks = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
    softmax_kernel<32, kWarpCols / 32 / kWidth, V><<<blocks, 32 * kWarpsPerBlock>>>(in, out, rows, n);
  } else {
    softmax_kernel<kBlockThreads, 8192 / kBlockThreads / kWidth, V><<<rows, kBlockThreads>>>(in, out, rows, n);
  }
}

}  // namespace

void softmax(const float* in, float* out, int rows, int cols) {
  if (rows == 0) return;
  auto aligned = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  if (cols % 4 == 0 && aligned(in) && aligned(out)) {
    launch<float4, 4>(reinterpret_cast<const float4*>(in), reinterpret_cast<float4*>(out), rows, cols);
  } else {
    launch<float, 1>(in, out, rows, cols);
  }
}
//! [launch]

}  // namespace solution
