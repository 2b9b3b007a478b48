// Exercise 05, reference solution: layer normalisation of every row, forward.
//
// One pass reads the row and keeps, per thread, Welford's running count, mean and M2 (the sum of
// squared deviations from the running mean): each element moves the mean by (x - mean) / n and
// adds (x - old mean) (x - new mean) to M2. No sum of squares is ever formed, so a row whose mean
// is large next to its spread loses nothing to cancellation (E[x^2] - E[x]^2 would). The threads
// of a row then merge their (n, mean, M2) with Chan's formula (shuffles, then shared memory across
// warps), and a write pass stores (x - mean) * rstd * gamma + beta.
//
// A row is a warp's (rows up to kWarpCols columns) or a block's of kBlockThreads. Each thread
// keeps the first kCache of its elements in registers between the passes (a row of 8192 floats
// is read from memory once); elements past those are read again. When cols is a multiple of 4
// and x, gamma, beta and y are 16-byte aligned, elements move as float4s.
#include "layernorm.cuh"

#include <cstdint>

namespace solution {

namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kWarpCols = 1024;     // rows up to this long: a warp per row
constexpr int kBlockThreads = 512;  // longer rows: a block of this many threads per row
constexpr int kWarpsPerBlock = 8;   // warp-per-row blocks: 8 rows each

// Welford's state: n elements, their mean, and the sum of their squared deviations from it.
struct Stats {
  float n, mean, m2;
};

__device__ __forceinline__ void add(Stats& s, float x) {
  s.n += 1.0f;
  const float d = x - s.mean;
  s.mean += d / s.n;
  s.m2 += d * (x - s.mean);
}
__device__ __forceinline__ void add(Stats& s, float4 v) {
  add(s, v.x);
  add(s, v.y);
  add(s, v.z);
  add(s, v.w);
}

// Chan et al.: the statistics of the union of two sets of elements.
__device__ __forceinline__ Stats merge(Stats a, Stats b) {
  const float n = a.n + b.n;
  if (n == 0.0f) return a;
  const float d = b.mean - a.mean, wb = b.n / n;
  return {n, a.mean + d * wb, a.m2 + b.m2 + d * d * a.n * wb};
}

__device__ __forceinline__ Stats warp_merge(Stats s) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2)
    s = merge(s, {__shfl_xor_sync(kFullMask, s.n, offset), __shfl_xor_sync(kFullMask, s.mean, offset),
                  __shfl_xor_sync(kFullMask, s.m2, offset)});
  return s;  // in every lane
}

__device__ __forceinline__ float normalise(float x, float mean, float rstd, float g, float b) {
  return (x - mean) * rstd * g + b;
}
__device__ __forceinline__ float4 normalise(float4 x, float mean, float rstd, float4 g, float4 b) {
  return make_float4(normalise(x.x, mean, rstd, g.x, b.x), normalise(x.y, mean, rstd, g.y, b.y),
                     normalise(x.z, mean, rstd, g.z, b.z), normalise(x.w, mean, rstd, g.w, b.w));
}

}  // namespace

//! [kernel]
// kGroup threads per row (32: a warp; kBlockThreads: the block); V = float or float4; each
// thread's items are i = t, t + kGroup, ... below n (items per row); the first kCache stay in registers.
template <int kGroup, int kCache, class V>
__global__ void __launch_bounds__(kGroup == 32 ? 32 * kWarpsPerBlock : kGroup)
    layernorm_kernel(const V* __restrict__ x, const V* __restrict__ gamma, const V* __restrict__ beta,
                     V* __restrict__ y, float* __restrict__ mean, float* __restrict__ rstd, int rows, int n,
                     float eps) {
  __shared__ Stats partial[kGroup / 32];
  const int t = threadIdx.x % kGroup;
  const int r = kGroup == 32 ? blockIdx.x * kWarpsPerBlock + threadIdx.x / 32 : blockIdx.x;
  if (r >= rows) return;  // a whole warp (warp per row) or the whole block
  auto row_x = x + std::int64_t(r) * n;
  auto row_y = y + std::int64_t(r) * n;

  // Pass 1: Welford over this thread's items.
  V cache[kCache];
  Stats s{0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int j = 0; j < kCache; ++j) {
    const int i = t + j * kGroup;
    if (i < n) {
      cache[j] = row_x[i];
      add(s, cache[j]);
    }
  }
  for (int i = t + kCache * kGroup; i < n; i += kGroup) add(s, row_x[i]);

  // The row's statistics: merged over the warp, then over the block's warps.
  s = warp_merge(s);
  if (kGroup > 32) {
    if (t % 32 == 0) partial[t / 32] = s;
    __syncthreads();
    s = partial[0];
#pragma unroll
    for (int w = 1; w < kGroup / 32; ++w) s = merge(s, partial[w]);
  }
  const float rs = rsqrtf(s.m2 / s.n + eps);  // the population variance: M2 / cols
  if (t == 0) {
    mean[r] = s.mean;
    rstd[r] = rs;
  }

  // Pass 2: y = (x - mean) * rstd * gamma + beta.
#pragma unroll
  for (int j = 0; j < kCache; ++j) {
    const int i = t + j * kGroup;
    if (i < n) row_y[i] = normalise(cache[j], s.mean, rs, gamma[i], beta[i]);
  }
  for (int i = t + kCache * kGroup; i < n; i += kGroup) row_y[i] = normalise(row_x[i], s.mean, rs, gamma[i], beta[i]);
}
//! [kernel]

//! [launch]
namespace {

template <class V, int kWidth>
void launch(const V* x, const V* gamma, const V* beta, V* y, float* mean, float* rstd, int rows, int cols,
            float eps) {
  const int n = cols / kWidth;  // items per row
  if (cols <= kWarpCols) {
    const int blocks = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
    layernorm_kernel<32, kWarpCols / 32 / kWidth, V>
        <<<blocks, 32 * kWarpsPerBlock>>>(x, gamma, beta, y, mean, rstd, rows, n, eps);
  } else {
    layernorm_kernel<kBlockThreads, 8192 / kBlockThreads / kWidth, V>
        <<<rows, kBlockThreads>>>(x, gamma, beta, y, mean, rstd, rows, n, eps);
  }
}

}  // namespace

void layernorm(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd, int rows,
               int cols, float eps) {
  if (rows == 0) return;
  auto aligned = [](const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  if (cols % 4 == 0 && aligned(x) && aligned(gamma) && aligned(beta) && aligned(y)) {
    launch<float4, 4>(reinterpret_cast<const float4*>(x), reinterpret_cast<const float4*>(gamma),
                      reinterpret_cast<const float4*>(beta), reinterpret_cast<float4*>(y), mean, rstd, rows, cols,
                      eps);
  } else {
    launch<float, 1>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
  }
}
//! [launch]

}  // namespace solution
