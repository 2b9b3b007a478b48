// Exercise 08: y = A x, coalesced. This is your file: fill in the TODOs, then grade it with
//   bash cmake/workbook.sh grade x08
// The task is exercises/08-sgemv/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "sgemv.cuh"

namespace student {

//! [kernel]
__global__ void sgemv_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                             int rows, int cols) {
  // TODO: one warp per row (lane = threadIdx.x % 32):
  //       1. each lane adds A[row][c] * x[c] over its columns c = lane, lane + 32, ... : at each step
  //          the warp's 32 lanes read 32 neighbouring elements of the row (one coalesced request);
  //       2. combine the 32 lanes' sums with warp shuffles (exercise 07);
  //       3. lane 0 writes y[row].
  //       A warp whose row is past the last one has nothing to do.
}
//! [kernel]

//! [launch]
void sgemv(const float* A, const float* x, float* y, int rows, int cols) {
  // TODO: a warp for every row (or let each warp loop over rows).
  const int threads = 256, blocks = 1;
  sgemv_kernel<<<blocks, threads>>>(A, x, y, rows, cols);
}
//! [launch]

}  // namespace student
