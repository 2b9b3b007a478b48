// Exercise 10, reference solution: the k largest elements of every row (k <= 32), one warp per
// row. The warp keeps the best 32 (value, column) pairs seen so far as a list sorted best first,
// spread over its lanes: lane j holds the j-th best. The row is read 32 (or 128, with float4) elements
// at a time; a __ballot_sync picks out the few elements that beat the list's k-th entry, and
// each of those is inserted: every lane compares its entry with the newcomer, a second ballot
// counts the entries that stay ahead of it, and the entries behind it move down one lane
// (__shfl_up_sync). On random data, after the first few steps almost no element beats the k-th
// entry, so most of the row costs one compare and one ballot per element: the kernel runs at
// nearly the speed of reading the row. No shared memory, no sorting network.
#include "topk.cuh"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>

namespace solution {

// ---- kernels ----
namespace {

constexpr unsigned kFullMask = 0xffffffffu;

}  // namespace

//! [better]
// The order of the contract: a larger value first; of equal values, the lower column first.
__device__ __forceinline__ bool better(float v, int i, float w, int j) { return v > w || (v == w && i < j); }
//! [better]

//! [insert]
// The warp's list: lane j holds (lv, li), the j-th best pair so far, best first. Inserts (v, i),
// which the whole warp passes with the same value, and returns the list's new k-th entry.
__device__ __forceinline__ void insert(float& lv, int& li, float v, int i) {
  const int lane = threadIdx.x % 32;
  // Entries better than (v, i) keep their lanes; they are lanes 0..ahead-1 (the list is sorted).
  const int ahead = __popc(__ballot_sync(kFullMask, better(lv, li, v, i)));
  const float up_v = __shfl_up_sync(kFullMask, lv, 1);  // lane j - 1's entry
  const int up_i = __shfl_up_sync(kFullMask, li, 1);
  if (lane == ahead) {
    lv = v;
    li = i;
  } else if (lane > ahead) {  // one place down; lane 31's entry falls off the list
    lv = up_v;
    li = up_i;
  }
}

// Offers (v, i), this lane's element, to the list: the lanes whose elements beat the k-th entry
// (tv, ti) are inserted one at a time, lowest lane first.
__device__ __forceinline__ void offer(float& lv, int& li, float& tv, int& ti, int k, float v, int i) {
  unsigned pending = __ballot_sync(kFullMask, better(v, i, tv, ti));
  while (pending) {  // the same on every lane: the loop is uniform across the warp
    const int src = __ffs(pending) - 1;
    pending &= pending - 1;
    const float cv = __shfl_sync(kFullMask, v, src);
    const int ci = __shfl_sync(kFullMask, i, src);
    if (!better(cv, ci, tv, ti)) continue;  // an earlier insertion raised the bar
    insert(lv, li, cv, ci);
    tv = __shfl_sync(kFullMask, lv, k - 1);
    ti = __shfl_sync(kFullMask, li, k - 1);
  }
}
//! [insert]

//! [kernel]
// V: float (any row) or float4 (rows of whole, aligned float4s); n = loads per row. Warp w of the
// grid takes rows w, w + (warps in the grid), ...
template <class V>
__global__ void __launch_bounds__(256) topk_kernel(const V* __restrict__ in, int rows, int n, int k,
                                                   float* __restrict__ values, int* __restrict__ indices) {
  constexpr int kWidth = sizeof(V) / sizeof(float);  // columns per load
  const int lane = threadIdx.x % 32;
  const int warps = gridDim.x * (blockDim.x / 32);
  for (int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < rows; r += warps) {
    auto row = in + std::int64_t(r) * n;
    float lv = -INFINITY, tv = -INFINITY;  // an empty entry: worse than any element, -infinity included
    int li = INT_MAX, ti = INT_MAX;
    const int steps = (n + 31) / 32;  // the same on every lane: every lane takes part in every ballot
    V next{};
    if (lane < n) next = row[lane];
    for (int s = 0; s < steps; ++s) {
      const int i = lane + 32 * s;
      const bool mine = i < n;
      const V v = next;
      if (i + 32 < n) next = row[i + 32];  // the next step's load is in flight while this one is offered
      const float* e = reinterpret_cast<const float*>(&v);
#pragma unroll
      for (int w = 0; w < kWidth; ++w)
        offer(lv, li, tv, ti, k, mine ? e[w] : -INFINITY, mine ? kWidth * i + w : INT_MAX);
    }
    if (lane < k) {  // the list's first k entries, best first: coalesced stores
      values[std::int64_t(r) * k + lane] = lv;
      indices[std::int64_t(r) * k + lane] = li;
    }
  }
}
//! [kernel]

// ---- launcher ----
namespace {

int multiprocessors() {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return sms;
}

}  // namespace

//! [launch]
void topk(const float* in, int rows, int cols, int k, float* values, int* indices) {
  if (rows == 0) return;
  constexpr int kThreads = 256;  // 8 warps: 8 rows at a time per block
  const int blocks = std::max(1, std::min((rows + kThreads / 32 - 1) / (kThreads / 32), multiprocessors() * 8));
  if (cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(in) % 16 == 0) {
    topk_kernel<float4><<<blocks, kThreads>>>(reinterpret_cast<const float4*>(in), rows, cols / 4, k, values,
                                              indices);
  } else {
    topk_kernel<float><<<blocks, kThreads>>>(in, rows, cols, k, values, indices);
  }
}
//! [launch]

}  // namespace solution
