// Exercise 01: histogram. This is your file: fill in the TODOs, then grade it with
//   bash cmake/workbook.sh grade x01
// The task is exercises/01-histogram/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "histogram.cuh"

namespace student {

//! [kernel]
__global__ void histogram_kernel(const std::uint8_t* __restrict__ in, std::int64_t n, unsigned int* __restrict__ hist) {
  // TODO: 1. declare the block's own 256 bins in shared memory (__shared__ unsigned int ...), and
  //          set every one of them to 0 (a block may have fewer than 256 threads);
  //       2. count this thread's share of in[0..n) into the shared bins (a grid-stride loop);
  //       3. once the whole block has counted, add its 256 bins to hist.
}
//! [kernel]

//! [launch]
void histogram(const std::uint8_t* in, std::int64_t n, unsigned int* hist) {
  // TODO: hist must start at 0 (the blocks add onto it); launch enough blocks to keep every
  //       multiprocessor busy, but no more than n needs.
  const int threads = 256, blocks = 1;
  histogram_kernel<<<blocks, threads>>>(in, n, hist);
}
//! [launch]

}  // namespace student
