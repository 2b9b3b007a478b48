// Exercise 17, reference solution: a stable least-significant-digit radix sort of key-value
// pairs, 8 bits per pass, four passes. Each pass runs three kernels:
//   1. every tile (one block) counts how many of its keys have each digit value (0..255);
//   2. one block scans those counts, laid out digit-major (all tiles' counts of digit 0, then
//      all of digit 1, ...), so the exclusive prefix at (digit d, tile t) is where tile t's
//      first key with digit d goes;
//   3. every tile ranks each key among the tile's keys with the same digit, in input order
//      (ballots find a warp's equal digits, a counter per warp and digit carries the rank across
//      the warp's rounds), and writes the pair to its place.
// Nothing reorders equal digits, so each pass is stable, and four stable passes sort by all 32 bits.
#include "radix_sort.cuh"

#include <cstdint>

namespace solution {

constexpr int kBits = 8;                 // bits per pass
constexpr int kDigits = 1 << kBits;      // values a digit takes
constexpr int kPasses = 32 / kBits;      // an even number: the last pass writes keys_out
constexpr int kThreads = 256;            // threads per block of the counting and scatter kernels
constexpr int kItems = 16;               // keys per thread: a tile is kThreads x kItems = 4096 keys
constexpr int kTile = kThreads * kItems;
constexpr int kScanThreads = 1024;       // the one block that scans the counts
constexpr int kScanItems = 16;           // ... kScanItems consecutive counts per thread and round

std::int64_t tiles_for(std::int64_t n) { return (n + kTile - 1) / kTile; }

// ---- kernels ----
//! [digit]
// The digit a pass sorts on: bits shift .. shift + kBits - 1 of the key, as an unsigned number.
__device__ __forceinline__ unsigned digit_of(std::uint32_t key, int shift) { return (key >> shift) & (kDigits - 1); }
//! [digit]

//! [count]
// counts[d * tiles + tile] = how many keys of this block's tile have digit d. Thread t takes the
// tile's keys t, t + kThreads, ... (coalesced); the order does not matter for a count.
__global__ void __launch_bounds__(kThreads)
    digit_counts_kernel(const std::uint32_t* __restrict__ keys, std::int64_t n, int shift,
                        std::uint32_t* __restrict__ counts, std::int64_t tiles) {
  __shared__ unsigned int bins[kDigits];
  for (int d = threadIdx.x; d < kDigits; d += kThreads) bins[d] = 0;
  __syncthreads();  // every bin is 0 before any thread counts into it
  const std::int64_t start = std::int64_t(blockIdx.x) * kTile;
#pragma unroll 4
  for (int j = 0; j < kItems; ++j) {
    const std::int64_t i = start + j * kThreads + threadIdx.x;
    if (i < n) atomicAdd(&bins[digit_of(keys[i], shift)], 1u);
  }
  __syncthreads();  // every count of the block is in before the bins are read
  for (int d = threadIdx.x; d < kDigits; d += kThreads) counts[std::int64_t(d) * tiles + blockIdx.x] = bins[d];
}
//! [count]

//! [scan]
// counts[0..m) becomes its exclusive prefix sum, in one block: rounds of kScanThreads x kScanItems
// counts (each thread kScanItems consecutive ones), the threads' totals scanned with shuffles per
// warp and by warp 0 across the warps, a carry between rounds.
__global__ void __launch_bounds__(kScanThreads) exclusive_scan_kernel(std::uint32_t* __restrict__ counts, std::int64_t m) {
  constexpr int kWarps = kScanThreads / 32;
  __shared__ std::uint32_t warp_sums[kWarps];
  __shared__ std::uint32_t carry;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (threadIdx.x == 0) carry = 0;
  for (std::int64_t base = 0; base < m; base += std::int64_t(kScanThreads) * kScanItems) {
    const std::int64_t first = base + std::int64_t(threadIdx.x) * kScanItems;
    std::uint32_t c[kScanItems];
    std::uint32_t v = 0;  // the thread's total
#pragma unroll
    for (int k = 0; k < kScanItems; ++k) {
      c[k] = first + k < m ? counts[first + k] : 0u;
      v += c[k];
    }
    std::uint32_t x = v;  // the inclusive scan of the warp's totals
    for (int offset = 1; offset < 32; offset *= 2) {
      const std::uint32_t up = __shfl_up_sync(0xffffffffu, x, offset);
      if (lane >= offset) x += up;
    }
    if (lane == 31) warp_sums[warp] = x;
    __syncthreads();  // every warp's total (and the carry) is in before warp 0 scans them
    if (warp == 0) {
      std::uint32_t s = lane < kWarps ? warp_sums[lane] : 0u;
      for (int offset = 1; offset < 32; offset *= 2) {
        const std::uint32_t up = __shfl_up_sync(0xffffffffu, s, offset);
        if (lane >= offset) s += up;
      }
      if (lane < kWarps) warp_sums[lane] = s;  // the warps' inclusive totals
    }
    __syncthreads();  // the scanned totals are in before any thread reads them
    std::uint32_t before = carry + (warp > 0 ? warp_sums[warp - 1] : 0u) + (x - v);
#pragma unroll
    for (int k = 0; k < kScanItems; ++k) {
      if (first + k < m) counts[first + k] = before;
      before += c[k];
    }
    __syncthreads();  // every thread has read carry and warp_sums before they change
    if (threadIdx.x == kScanThreads - 1) carry = before;  // everything up to the round's end
  }
}
//! [scan]

//! [scatter]
// Writes this tile's pairs to their places. Warp w owns the tile's w-th segment of 32 x kItems
// keys and goes through it in kItems rounds of 32 consecutive keys (lane l takes key l of the
// round). In each round, 8 ballots (one per bit of the digit) give every lane the mask of lanes
// whose key has its digit; its rank is the number of those below it plus what earlier rounds
// counted for that digit (warp_count). Then the warps' counts are turned into where each warp's
// keys of a digit start: the tile's offset for that digit plus the counts of the warps before.
__global__ void __launch_bounds__(kThreads)
    scatter_kernel(const std::uint32_t* __restrict__ keys_in, const std::uint32_t* __restrict__ values_in,
                   std::uint32_t* __restrict__ keys_out, std::uint32_t* __restrict__ values_out, std::int64_t n,
                   int shift, const std::uint32_t* __restrict__ offsets, std::int64_t tiles) {
  constexpr int kWarps = kThreads / 32;
  __shared__ std::uint32_t warp_count[kWarps][kDigits];  // keys of each digit seen so far, per warp
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int k = threadIdx.x; k < kWarps * kDigits; k += kThreads) warp_count[k / kDigits][k % kDigits] = 0;
  __syncthreads();  // every counter is 0 before any warp counts

  const std::int64_t segment = std::int64_t(blockIdx.x) * kTile + std::int64_t(warp) * 32 * kItems;
  const unsigned below = (1u << lane) - 1u;  // the lanes before this one
  std::uint32_t key[kItems], value[kItems], rank[kItems];
#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const std::int64_t i = segment + j * 32 + lane;
    const bool valid = i < n;
    key[j] = valid ? keys_in[i] : 0u;
    value[j] = valid ? values_in[i] : 0u;
    const unsigned digit = digit_of(key[j], shift);
    unsigned peers = __ballot_sync(0xffffffffu, valid);  // lanes past n have no peers
#pragma unroll
    for (int b = 0; b < kBits; ++b) {
      const bool bit = (digit >> b) & 1u;
      const unsigned ones = __ballot_sync(0xffffffffu, bit);
      peers &= bit ? ones : ~ones;
    }
    rank[j] = valid ? warp_count[warp][digit] + __popc(peers & below) : 0u;
    __syncwarp();  // every lane has read its digit's counter before the first of its peers adds to it
    if (valid && (peers & below) == 0) warp_count[warp][digit] += __popc(peers);
    __syncwarp();  // the counters are up to date before the next round reads them
  }
  __syncthreads();  // every warp has counted before the counts are turned into offsets

  for (int d = threadIdx.x; d < kDigits; d += kThreads) {
    std::uint32_t start = offsets[std::int64_t(d) * tiles + blockIdx.x];  // the tile's first key with digit d
    for (int w = 0; w < kWarps; ++w) {
      const std::uint32_t c = warp_count[w][d];
      warp_count[w][d] = start;  // now: where warp w's keys with digit d start
      start += c;
    }
  }
  __syncthreads();  // the offsets are in before any thread reads them

#pragma unroll
  for (int j = 0; j < kItems; ++j) {
    const std::int64_t i = segment + j * 32 + lane;
    if (i < n) {
      const unsigned digit = digit_of(key[j], shift);
      const std::uint32_t to = warp_count[warp][digit] + rank[j];
      keys_out[to] = key[j];
      values_out[to] = value[j];
    }
  }
}
//! [scatter]

// ---- launcher ----
//! [launch]
// scratch = [keys, n][values, n][counts, kDigits x tiles]: 4 bytes each.
std::size_t radix_sort_scratch_bytes(std::int64_t n) {
  return sizeof(std::uint32_t) * std::size_t(2 * n + kDigits * tiles_for(n));
}

void radix_sort_pairs(const std::uint32_t* keys_in, const std::uint32_t* values_in, std::uint32_t* keys_out,
                      std::uint32_t* values_out, std::int64_t n, void* scratch) {
  if (n == 0) return;
  const std::int64_t tiles = tiles_for(n);
  std::uint32_t* keys_tmp = static_cast<std::uint32_t*>(scratch);
  std::uint32_t* values_tmp = keys_tmp + n;
  std::uint32_t* counts = values_tmp + n;
  // Pass p reads what pass p - 1 wrote: in -> tmp -> out -> tmp -> out (kPasses is even).
  const std::uint32_t* from_keys = keys_in;
  const std::uint32_t* from_values = values_in;
  for (int pass = 0; pass < kPasses; ++pass) {
    const int shift = pass * kBits;
    std::uint32_t* to_keys = pass % 2 == 0 ? keys_tmp : keys_out;
    std::uint32_t* to_values = pass % 2 == 0 ? values_tmp : values_out;
    digit_counts_kernel<<<static_cast<unsigned>(tiles), kThreads>>>(from_keys, n, shift, counts, tiles);
    exclusive_scan_kernel<<<1, kScanThreads>>>(counts, kDigits * tiles);
    scatter_kernel<<<static_cast<unsigned>(tiles), kThreads>>>(from_keys, from_values, to_keys, to_values, n, shift,
                                                               counts, tiles);
    from_keys = to_keys;
    from_values = to_values;
  }
}
//! [launch]

}  // namespace solution
