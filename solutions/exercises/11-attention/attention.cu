// Exercise 11, reference solution: one attention head's forward pass in a single kernel, without
// the n x n scores in memory (the FlashAttention scheme, in float32 on the CUDA cores).
// A block owns kBQ queries. It walks over the keys kBK at a time: loads the key tile into
// shared memory, computes the kBQ x kBK scores (each thread a kR x kC patch of them), updates
// each query's running maximum m and running sum l of exp(s - m) (the "online" softmax: when m
// grows, what was summed so far is rescaled by exp(m_old - m_new)), writes the tile's
// exp(s - m) to shared memory, loads the value tile in place of the key tile, and adds
// p V to each query's output, rescaled likewise. At the end O = output / l.
// exp(x) is computed as exp2(x log2 e), with log2 e folded into the scale of the scores.
#include "attention.cuh"

#include <cmath>
#include <cstdint>

namespace solution {

// ---- kernels ----
namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kThreads = 128;
constexpr int kRowGroups = 16, kColGroups = 8;  // thread t: rows of group t / 8, keys and dims of group t % 8

}  // namespace

//! [kernel]
// kD: the head dimension; kR: queries per thread (the block's kBQ = 16 kR queries); kC = 4 keys per
// thread (kBK = 32 keys per tile); each thread accumulates kR queries x (kD / 8) dims of O.
template <int kD, int kR>
__global__ void __launch_bounds__(kThreads)
    attention_kernel(const float* __restrict__ Q, const float* __restrict__ K, const float* __restrict__ V,
                     float* __restrict__ O, int n, float scale_log2e) {
  constexpr int kC = 4, kBQ = kRowGroups * kR, kBK = kColGroups * kC, kDT = kD / kColGroups;
  __shared__ float q[kBQ][kD + 1];   // the block's queries; +1: rows start on different banks
  __shared__ float kv[kBK][kD + 1];  // the tile's keys, then its values
  __shared__ float p[kBQ][kBK + 1];  // exp(s - m) of the tile
  const int t = threadIdx.x, tq = t / kColGroups, tk = t % kColGroups;
  const int q0 = blockIdx.x * kBQ;

  for (int e = t; e < kBQ * kD; e += kThreads) {
    const int r = e / kD, c = e % kD;
    q[r][c] = q0 + r < n ? Q[std::int64_t(q0 + r) * kD + c] : 0.0f;  // queries past n: zeros, never written out
  }
  float m[kR], l[kR], o[kR][kDT];
#pragma unroll
  for (int i = 0; i < kR; ++i) {
    m[i] = -INFINITY;
    l[i] = 0.0f;
#pragma unroll
    for (int c = 0; c < kDT; ++c) o[i][c] = 0.0f;
  }

  for (int k0 = 0; k0 < n; k0 += kBK) {
    __syncthreads();  // the previous tile's values and p are no longer read (and the queries are loaded)
    for (int e = t; e < kBK * kD; e += kThreads) {
      const int r = e / kD, c = e % kD;
      kv[r][c] = k0 + r < n ? K[std::int64_t(k0 + r) * kD + c] : 0.0f;
    }
    __syncthreads();

    // Scores: queries tq * kR + i against keys tk * kC + j of the tile.
    float s[kR][kC];
#pragma unroll
    for (int i = 0; i < kR; ++i)
#pragma unroll
      for (int j = 0; j < kC; ++j) s[i][j] = 0.0f;
#pragma unroll 8
    for (int dd = 0; dd < kD; ++dd) {
      float a[kR], b[kC];
#pragma unroll
      for (int i = 0; i < kR; ++i) a[i] = q[tq * kR + i][dd];
#pragma unroll
      for (int j = 0; j < kC; ++j) b[j] = kv[tk * kC + j][dd];
#pragma unroll
      for (int i = 0; i < kR; ++i)
#pragma unroll
        for (int j = 0; j < kC; ++j) s[i][j] = fmaf(a[i], b[j], s[i][j]);
    }

    // Online softmax, per query: the 8 threads of a row group hold the tile's 32 scores of it.
#pragma unroll
    for (int i = 0; i < kR; ++i) {
      float tile_max = -INFINITY;
#pragma unroll
      for (int j = 0; j < kC; ++j) {
        s[i][j] = k0 + tk * kC + j < n ? s[i][j] * scale_log2e : -INFINITY;  // keys past n weigh 0
        tile_max = fmaxf(tile_max, s[i][j]);
      }
#pragma unroll
      for (int offset = kColGroups / 2; offset > 0; offset /= 2)
        tile_max = fmaxf(tile_max, __shfl_xor_sync(kFullMask, tile_max, offset));
      const float m_new = fmaxf(m[i], tile_max);  // finite: key k0 < n is in every tile
      const float rescale = exp2f(m[i] - m_new);  // 0 at the first tile (m = -inf)
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < kC; ++j) {
        const float e = exp2f(s[i][j] - m_new);
        p[tq * kR + i][tk * kC + j] = e;
        sum += e;
      }
#pragma unroll
      for (int offset = kColGroups / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(kFullMask, sum, offset);
      l[i] = l[i] * rescale + sum;
      m[i] = m_new;
#pragma unroll
      for (int c = 0; c < kDT; ++c) o[i][c] *= rescale;
    }
    __syncthreads();  // the keys are no longer read; p is complete

    for (int e = t; e < kBK * kD; e += kThreads) {
      const int r = e / kD, c = e % kD;
      kv[r][c] = k0 + r < n ? V[std::int64_t(k0 + r) * kD + c] : 0.0f;
    }
    __syncthreads();

    // o += p V: dims tk, tk + 8, ... of queries tq * kR + i.
#pragma unroll 4
    for (int key = 0; key < kBK; ++key) {
      float v[kDT];
#pragma unroll
      for (int c = 0; c < kDT; ++c) v[c] = kv[key][tk + kColGroups * c];
#pragma unroll
      for (int i = 0; i < kR; ++i) {
        const float w = p[tq * kR + i][key];
#pragma unroll
        for (int c = 0; c < kDT; ++c) o[i][c] = fmaf(w, v[c], o[i][c]);
      }
    }
  }

#pragma unroll
  for (int i = 0; i < kR; ++i) {
    const int row = q0 + tq * kR + i;
    if (row >= n) continue;
    const float inv = 1.0f / l[i];
#pragma unroll
    for (int c = 0; c < kDT; ++c) O[std::int64_t(row) * kD + tk + kColGroups * c] = o[i][c] * inv;
  }
}
//! [kernel]

// ---- launcher ----
//! [launch]
void attention(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  constexpr int kR = 2;  // 32 queries per block: n / 32 blocks (256 for n = 8192)
  const int blocks = (n + kRowGroups * kR - 1) / (kRowGroups * kR);
  const float scale_log2e = 1.4426950408889634f / std::sqrt(float(d));  // log2(e) / sqrt(d)
  if (d == 32) attention_kernel<32, kR><<<blocks, kThreads>>>(Q, K, V, O, n, scale_log2e);
  if (d == 64) attention_kernel<64, kR><<<blocks, kThreads>>>(Q, K, V, O, n, scale_log2e);
  if (d == 128) attention_kernel<128, kR><<<blocks, kThreads>>>(Q, K, V, O, n, scale_log2e);
}
//! [launch]

}  // namespace solution
