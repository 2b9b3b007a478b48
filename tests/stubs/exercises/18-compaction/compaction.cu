// Exercise 18: stream compaction. This is your file: fill in the TODOs, then grade it with
//   bash cmake/workbook.sh grade x18
// The task is exercises/18-compaction/README.md.
#include "compaction.cuh"

namespace student {

constexpr int kThreads = 256;  // threads per block

//! [predicate]
__device__ __forceinline__ bool kept(float x, float threshold) { return x > threshold; }
//! [predicate]

//! [count]
__global__ void count_kernel(const float* __restrict__ in, std::int64_t n, float threshold,
                             std::int64_t* __restrict__ tile_counts) {
  // TODO: count the kept elements of this block's tile and write the count to tile_counts[tile].
}
//! [count]

//! [write]
__global__ void write_kernel(const float* __restrict__ in, std::int64_t n, float threshold,
                             const std::int64_t* __restrict__ tile_starts, float* __restrict__ out) {
  // TODO: write this tile's kept elements to out from tile_starts[tile] on, in their order: a kept
  //       element's place is the tile's start plus the number of kept elements before it in the
  //       tile (a scan of the 0/1 flags: ballots and __popc, or shared memory).
}
//! [write]

//! [launch]
std::size_t select_scratch_bytes(std::int64_t n) {
  // TODO: what must the tiles share (for example, one count per tile)?
  return 0;
}

void select_greater(const float* in, std::int64_t n, float threshold, float* out, std::int64_t* count, void* scratch) {
  // TODO: count per tile, scan the counts (exclusive: each tile's start; the total is *count),
  //       write; or one pass with decoupled look-back. Scratch holds whatever it held before.
  if (n == 0) {
    cudaMemsetAsync(count, 0, sizeof(std::int64_t));  // nothing to keep: *count is still written
    return;
  }
  const unsigned tiles = 1;
  write_kernel<<<tiles, kThreads>>>(in, n, threshold, static_cast<const std::int64_t*>(scratch), out);
}
//! [launch]

}  // namespace student
