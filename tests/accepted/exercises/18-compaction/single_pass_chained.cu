// Accepted variant: one kernel, one pass (a chained scan). Tiles are numbered in the order blocks
// start (a ticket), so a tile only waits for tiles whose blocks are already running. Each tile
// counts its kept elements with ballots, waits for the tile before it to publish where its kept
// elements end, publishes where its own end, and writes them. The last tile writes *count.
#include "compaction.cuh"

namespace student {

constexpr int kThreads = 256;
constexpr int kItems = 16;
constexpr int kWarps = kThreads / 32;
constexpr int kTile = kThreads * kItems;  // 4096 elements
constexpr unsigned long long kReady = 1ull << 63;  // a tile's status: kReady | (end of its kept elements)

std::int64_t tiles_for(std::int64_t n) { return (n + kTile - 1) / kTile; }

__global__ void select_kernel(const float* __restrict__ in, std::int64_t n, float threshold, float* __restrict__ out,
                              std::int64_t* __restrict__ count, unsigned long long* __restrict__ scratch,
                              std::int64_t tiles) {
  __shared__ unsigned long long ticket;
  __shared__ unsigned int warp_total[kWarps];
  __shared__ long long tile_start;
  if (threadIdx.x == 0) ticket = atomicAdd(&scratch[0], 1ull);
  __syncthreads();
  const std::int64_t tile = static_cast<std::int64_t>(ticket);
  unsigned long long* status = scratch + 1;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const std::int64_t segment = tile * kTile + std::int64_t(warp) * 32 * kItems;

  float v[kItems];
  unsigned keep[kItems];
  unsigned int total = 0;
  for (int j = 0; j < kItems; ++j) {
    const std::int64_t i = segment + j * 32 + lane;
    v[j] = i < n ? in[i] : 0.0f;
    keep[j] = __ballot_sync(0xffffffffu, i < n && v[j] > threshold);
    total += __popc(keep[j]);
  }
  if (lane == 0) warp_total[warp] = total;
  __syncthreads();

  if (threadIdx.x == 0) {
    long long tile_total = 0;
    for (int w = 0; w < kWarps; ++w) tile_total += warp_total[w];
    long long before = 0;
    if (tile > 0) {
      unsigned long long word = 0;
      do {
        word = atomicAdd(&status[tile - 1], 0ull);
      } while (!(word & kReady));
      before = static_cast<long long>(word & ~kReady);
    }
    atomicExch(&status[tile], kReady | static_cast<unsigned long long>(before + tile_total));
    if (tile == tiles - 1) *count = before + tile_total;
    tile_start = before;
  }
  __syncthreads();

  std::int64_t at = tile_start;
  for (int w = 0; w < warp; ++w) at += warp_total[w];
  for (int j = 0; j < kItems; ++j) {
    if (keep[j] >> lane & 1u) out[at + __popc(keep[j] & ((1u << lane) - 1u))] = v[j];
    at += __popc(keep[j]);
  }
}

std::size_t select_scratch_bytes(std::int64_t n) { return sizeof(unsigned long long) * std::size_t(1 + tiles_for(n)); }

void select_greater(const float* in, std::int64_t n, float threshold, float* out, std::int64_t* count, void* scratch) {
  if (n == 0) {
    cudaMemsetAsync(count, 0, sizeof(std::int64_t));
    return;
  }
  cudaMemsetAsync(scratch, 0, select_scratch_bytes(n));  // the ticket and every status start at 0
  const std::int64_t tiles = tiles_for(n);
  select_kernel<<<unsigned(tiles), kThreads>>>(in, n, threshold, out, count, static_cast<unsigned long long*>(scratch),
                                              tiles);
}

}  // namespace student
