// Accepted variant: a three-phase scan with no look-back: (1) each block adds up its tile and
// writes the total to scratch; (2) one block turns the totals into exclusive prefixes; (3) each
// block scans its tile (16 contiguous elements per thread) and adds its tile's prefix.
#include "scan.cuh"

namespace student {

constexpr int kThreads = 256, kPerThread = 16, kTile = kThreads * kPerThread;
constexpr int kTotalsThreads = 1024;

// Inclusive scan of one value per thread across the block, in shared memory `s` (blockDim.x floats).
template <class Shared>
__device__ float block_inclusive_scan(float x, Shared s) {
  s[threadIdx.x] = x;
  __syncthreads();
  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
    float add = 0.0f;
    if (threadIdx.x >= offset) add = s[threadIdx.x - offset];
    __syncthreads();  // every read of this level before any write
    s[threadIdx.x] += add;
    __syncthreads();
  }
  return s[threadIdx.x];
}

__global__ void tile_totals_kernel(const float* __restrict__ in, std::int64_t n, float* __restrict__ totals) {
  __shared__ float s[kThreads];
  const std::int64_t base = std::int64_t(blockIdx.x) * kTile;
  float acc = 0.0f;
  for (int k = 0; k < kPerThread; ++k) {
    const std::int64_t i = base + k * kThreads + threadIdx.x;
    if (i < n) acc += in[i];
  }
  const float inclusive = block_inclusive_scan(acc, s);
  if (threadIdx.x == kThreads - 1) totals[blockIdx.x] = inclusive;
}

// One block: totals[t] becomes the sum of totals[0..t) (exclusive), each thread a run of them.
__global__ void scan_totals_kernel(float* __restrict__ totals, std::int64_t tiles) {
  __shared__ float s[kTotalsThreads];
  const std::int64_t per = (tiles + kTotalsThreads - 1) / kTotalsThreads;
  const std::int64_t first = std::int64_t(threadIdx.x) * per;
  float acc = 0.0f;
  for (std::int64_t k = 0; k < per; ++k)
    if (first + k < tiles) acc += totals[first + k];
  block_inclusive_scan(acc, s);
  float run = 0.0f;
  if (threadIdx.x > 0) run = s[threadIdx.x - 1];
  for (std::int64_t k = 0; k < per; ++k) {
    if (first + k >= tiles) break;
    const float t = totals[first + k];
    totals[first + k] = run;
    run += t;
  }
}

__global__ void scan_tiles_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n,
                                  const float* __restrict__ prefixes) {
  __shared__ float s[kThreads];
  const std::int64_t first = std::int64_t(blockIdx.x) * kTile + std::int64_t(threadIdx.x) * kPerThread;
  float v[kPerThread];
  float acc = 0.0f;
  for (int k = 0; k < kPerThread; ++k) {
    float x = 0.0f;
    if (first + k < n) x = in[first + k];
    acc += x;
    v[k] = acc;
  }
  const float inclusive = block_inclusive_scan(acc, s);
  const float add = prefixes[blockIdx.x] + (inclusive - acc);
  for (int k = 0; k < kPerThread; ++k)
    if (first + k < n) out[first + k] = v[k] + add;
}

std::size_t inclusive_scan_scratch_bytes(std::int64_t n) { return sizeof(float) * ((n + kTile - 1) / kTile); }

void inclusive_scan(const float* in, float* out, std::int64_t n, void* scratch) {
  if (n == 0) return;
  const std::int64_t tiles = (n + kTile - 1) / kTile;
  float* totals = static_cast<float*>(scratch);
  tile_totals_kernel<<<static_cast<unsigned>(tiles), kThreads>>>(in, n, totals);
  scan_totals_kernel<<<1, kTotalsThreads>>>(totals, tiles);
  scan_tiles_kernel<<<static_cast<unsigned>(tiles), kThreads>>>(in, out, n, totals);
}

}  // namespace student
