// Exercise 18, reference solution: stream compaction in three kernels.
//   1. every tile (one block) counts its elements greater than the threshold;
//   2. one block scans the tiles' counts (exclusive): where each tile's kept elements start in
//      out; the total is *count;
//   3. every tile writes its kept elements from there on, in order: a warp's ballot says which of
//      32 consecutive elements are kept, and a kept element's place is the tile's start, plus
//      the kept elements of the warps before (in the tile), plus those of the warp's earlier
//      rounds, plus the kept lanes below it in the ballot.
// Every element is read twice and each kept one written once.
#include "compaction.cuh"

#include <cstdint>

namespace solution {

constexpr int kThreads = 256;  // threads per block of the counting and writing kernels
constexpr int kItems = 16;     // elements per thread: a tile is kThreads x kItems = 4096 elements
constexpr int kTile = kThreads * kItems;
constexpr int kWarps = kThreads / 32;
constexpr int kScanThreads = 1024;  // the one block that scans the tiles' counts

std::int64_t tiles_for(std::int64_t n) { return (n + kTile - 1) / kTile; }

//! [predicate]
__device__ __forceinline__ bool kept(float x, float threshold) { return x > threshold; }
//! [predicate]

// ---- kernels ----
//! [count]
// tile_counts[tile] = how many elements of this block's tile are kept.
__global__ void __launch_bounds__(kThreads)
    count_kernel(const float* __restrict__ in, std::int64_t n, float threshold, std::int64_t* __restrict__ tile_counts) {
  __shared__ unsigned int block_count;
  if (threadIdx.x == 0) block_count = 0;
  __syncthreads();  // the counter is 0 before any warp adds to it
  const std::int64_t start = std::int64_t(blockIdx.x) * kTile;
  unsigned int mine = 0;
#pragma unroll 4
  for (int j = 0; j < kItems; ++j) {
    const std::int64_t i = start + j * kThreads + threadIdx.x;
    mine += i < n && kept(in[i], threshold);
  }
  for (int offset = 16; offset > 0; offset /= 2) mine += __shfl_xor_sync(0xffffffffu, mine, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(&block_count, mine);
  __syncthreads();  // every warp has added its count
  if (threadIdx.x == 0) tile_counts[blockIdx.x] = block_count;
}
//! [count]

//! [scan]
// tile_counts[0..tiles) becomes its exclusive prefix sum, in one block (rounds of kScanThreads
// counts, a carry between them), and *count = the sum of them all.
__global__ void __launch_bounds__(kScanThreads)
    scan_kernel(std::int64_t* __restrict__ tile_counts, std::int64_t tiles, std::int64_t* __restrict__ count) {
  constexpr int kScanWarps = kScanThreads / 32;
  __shared__ std::int64_t warp_sums[kScanWarps];
  __shared__ std::int64_t carry;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x == 0) carry = 0;
  for (std::int64_t base = 0; base < tiles; base += kScanThreads) {
    const std::int64_t i = base + threadIdx.x;
    const std::int64_t v = i < tiles ? tile_counts[i] : 0;
    std::int64_t x = v;  // the inclusive scan of the warp's counts
    for (int offset = 1; offset < 32; offset *= 2) {
      const std::int64_t up = __shfl_up_sync(0xffffffffu, x, offset);
      if (lane >= offset) x += up;
    }
    if (lane == 31) warp_sums[warp] = x;
    __syncthreads();  // every warp's total (and the carry) is in before warp 0 scans them
    if (warp == 0) {
      std::int64_t s = lane < kScanWarps ? warp_sums[lane] : 0;
      for (int offset = 1; offset < 32; offset *= 2) {
        const std::int64_t up = __shfl_up_sync(0xffffffffu, s, offset);
        if (lane >= offset) s += up;
      }
      if (lane < kScanWarps) warp_sums[lane] = s;
    }
    __syncthreads();  // the scanned totals are in before any thread reads them
    const std::int64_t before = carry + (warp > 0 ? warp_sums[warp - 1] : 0) + (x - v);
    if (i < tiles) tile_counts[i] = before;
    __syncthreads();  // every thread has read carry and warp_sums before they change
    if (threadIdx.x == kScanThreads - 1) carry = before + v;
  }
  __syncthreads();  // the last round's carry is in
  if (threadIdx.x == 0) *count = carry;
}
//! [scan]

//! [write]
// Warp w owns the tile's w-th segment of 32 x kItems elements, in kItems rounds of 32
// consecutive ones (lane l takes element l of the round: coalesced).
__global__ void __launch_bounds__(kThreads)
    write_kernel(const float* __restrict__ in, std::int64_t n, float threshold, const std::int64_t* __restrict__ tile_starts,
                 float* __restrict__ out) {
  __shared__ unsigned int warp_total[kWarps];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t segment = std::int64_t(blockIdx.x) * kTile + std::int64_t(warp) * 32 * kItems;
  float v[kItems];
  unsigned keep[kItems];  // the round's ballot: the same in every lane
  unsigned int total = 0;
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const std::int64_t i = segment + j * 32 + lane;
    v[j] = i < n ? in[i] : 0.0f;
    keep[j] = __ballot_sync(0xffffffffu, i < n && kept(v[j], threshold));
    total += __popc(keep[j]);
  }
  if (lane == 0) warp_total[warp] = total;
  __syncthreads();  // every warp's total is in before any warp adds up those before it
  std::int64_t at = tile_starts[blockIdx.x];
  for (int w = 0; w < warp; ++w) at += warp_total[w];
  const unsigned below = (1u << lane) - 1u;  // the lanes before this one
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    if (keep[j] >> lane & 1u) out[at + __popc(keep[j] & below)] = v[j];
    at += __popc(keep[j]);
  }
}
//! [write]

// ---- launcher ----
//! [launch]
// scratch = one 8-byte count per tile, scanned in place into the tiles' starts.
std::size_t select_scratch_bytes(std::int64_t n) { return sizeof(std::int64_t) * std::size_t(tiles_for(n)); }

void select_greater(const float* in, std::int64_t n, float threshold, float* out, std::int64_t* count, void* scratch) {
  if (n == 0) {
    cudaMemsetAsync(count, 0, sizeof(std::int64_t));  // nothing kept: still say so
    return;
  }
  const std::int64_t tiles = tiles_for(n);
  std::int64_t* tile_counts = static_cast<std::int64_t*>(scratch);
  count_kernel<<<static_cast<unsigned>(tiles), kThreads>>>(in, n, threshold, tile_counts);
  scan_kernel<<<1, kScanThreads>>>(tile_counts, tiles, count);
  write_kernel<<<static_cast<unsigned>(tiles), kThreads>>>(in, n, threshold, tile_counts, out);
}
//! [launch]

}  // namespace solution
