// Exercise 01, reference solution: a 256-bin byte histogram, privatised in shared memory.
// Each block counts into its own bins in shared memory with shared-memory atomics (fast, and
// contended only inside the block), then adds its 256 totals to hist with one global atomic
// per non-empty bin. Loads are 16 bytes wide; the bytes before the first 16-byte boundary and
// after the last one are counted one at a time.
#include "histogram.cuh"

#include <algorithm>
#include <cstdint>

namespace solution {

// ---- kernels ----
//! [count]
template <class Bins>
__device__ __forceinline__ void count_byte(Bins bins, unsigned int byte) {
  atomicAdd(&bins[byte], 1u);
}

// Adds the four bytes of `word` to `bins`: shared-memory atomics, since two threads of the block
// may meet on one bin (a plain ++ would lose one of the two updates).
template <class Bins>
__device__ __forceinline__ void count_bytes(Bins bins, unsigned int word) {
  atomicAdd(&bins[word & 0xFFu], 1u);
  atomicAdd(&bins[(word >> 8) & 0xFFu], 1u);
  atomicAdd(&bins[(word >> 16) & 0xFFu], 1u);
  atomicAdd(&bins[word >> 24], 1u);
}
//! [count]

//! [kernel]
// kCopies sub-histograms per block (warp w counts into copy w % kCopies): fewer warps contend
// for one bin. kUnroll 16-byte loads are in flight per thread before any is counted.
// in = head (the `head` < 16 bytes up to the first 16-byte boundary) + 16-byte words + tail (< 16).
template <int kThreads, int kCopies, int kUnroll>
__global__ void __launch_bounds__(kThreads)
    histogram_kernel(const std::uint8_t* __restrict__ in, std::int64_t n, int head, unsigned int* __restrict__ hist) {
  __shared__ unsigned int bins[kCopies * kHistogramBins];  // (kCopies, 256): this block's counts
  for (int b = threadIdx.x; b < kCopies * kHistogramBins; b += kThreads) bins[b] = 0;
  __syncthreads();  // every bin is 0 before any thread counts into it
  auto mine = bins + (threadIdx.x / 32 % kCopies) * kHistogramBins;  // this warp's copy

  const std::int64_t n16 = (n - head) / 16;
  const int4* body = reinterpret_cast<const int4*>(in + head);  // 16 bytes per load
  const std::int64_t first = std::int64_t(blockIdx.x) * kThreads + threadIdx.x;
  const std::int64_t stride = std::int64_t(kThreads) * gridDim.x;
  std::int64_t i = first;
  for (; i + (kUnroll - 1) * stride < n16; i += kUnroll * stride) {
    int4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = body[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      count_bytes(mine, v[u].x);
      count_bytes(mine, v[u].y);
      count_bytes(mine, v[u].z);
      count_bytes(mine, v[u].w);
    }
  }
  for (; i < n16; i += stride) {
    const int4 v = body[i];
    count_bytes(mine, v.x);
    count_bytes(mine, v.y);
    count_bytes(mine, v.z);
    count_bytes(mine, v.w);
  }
  // The head's and the tail's bytes, one per thread of the grid (fewer than 16 of each).
  const std::int64_t tail = head + 16 * n16;
  if (first < head) count_byte(mine, in[first]);
  if (first < n - tail) count_byte(mine, in[tail + first]);
  __syncthreads();  // every count of the block is in before its totals are read

  for (int b = threadIdx.x; b < kHistogramBins; b += kThreads) {
    unsigned int total = 0;
#pragma unroll
    for (int c = 0; c < kCopies; ++c) total += bins[c * kHistogramBins + b];
    if (total != 0) atomicAdd(&hist[b], total);  // one global atomic per block and bin
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
template <int kThreads, int kCopies, int kUnroll, int kBlocksPerSm>
void histogram_privatised(const std::uint8_t* in, std::int64_t n, unsigned int* hist) {
  cudaMemsetAsync(hist, 0, kHistogramBins * sizeof(unsigned int));  // the blocks add onto hist
  if (n == 0) return;
  const std::int64_t to_boundary = (16 - reinterpret_cast<std::uintptr_t>(in) % 16) % 16;
  const int head = static_cast<int>(std::min(n, to_boundary));
  // Enough blocks to fill every multiprocessor, no more than the 16-byte words need: each block
  // costs 256 global atomics at its end, so fewer, busier blocks are better than many.
  const std::int64_t resident = std::int64_t(multiprocessors()) * kBlocksPerSm;
  const std::int64_t needed = (n / 16 + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(std::max<std::int64_t>(1, std::min(resident, needed)));
  histogram_kernel<kThreads, kCopies, kUnroll><<<blocks, kThreads>>>(in, n, head, hist);
}
//! [launch]

void histogram(const std::uint8_t* in, std::int64_t n, unsigned int* hist) {
  histogram_privatised<512, 4, 2, 4>(in, n, hist);  // see bench/histogram_variants.cu
}

}  // namespace solution
