// Exercise 02: inclusive scan. This is your file: fill in the TODOs, then grade it with
//   bash cmake/workbook.sh grade x02
// The task is exercises/02-scan/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "scan.cuh"

namespace student {

constexpr int kThreads = 256;  // threads per block; one block scans one tile (16 floats per thread: 4096)

//! [kernel]
__global__ void scan_tiles_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n,
                                  unsigned long long* __restrict__ scratch) {
  // TODO: 1. scan this block's tile (zeros past n) in registers and shared memory;
  //       2. add to every element the sum of all the tiles before this one (the carry): look back
  //          at the totals the earlier tiles publish in scratch (decoupled look-back), or get it
  //          from passes of their own (reduce each tile, scan the tiles' totals, then this scan);
  //       3. store the elements below n.
}
//! [kernel]

//! [launch]
std::size_t inclusive_scan_scratch_bytes(std::int64_t n) {
  // TODO: what must the tiles share through scratch (for example, a status word per tile)?
  return 0;
}

void inclusive_scan(const float* in, float* out, std::int64_t n, void* scratch) {
  // TODO: scratch holds whatever it held before: set up what your kernel needs in it, at every
  //       call; launch one block per tile (n may be 0).
  const unsigned tiles = 1;
  scan_tiles_kernel<<<tiles, kThreads>>>(in, out, n, static_cast<unsigned long long*>(scratch));
}
//! [launch]

}  // namespace student
