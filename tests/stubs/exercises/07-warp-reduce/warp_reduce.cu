// Exercise 07: warp-shuffle reduction and broadcast. This is your file: fill in the TODOs, then
// grade it with
//   bash cmake/workbook.sh grade x07
// The task is exercises/07-warp-reduce/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "warp_reduce.cuh"

#include <cmath>

namespace student {

//! [reduce]
// The largest of the 32 lanes' values of v, returned to every lane.
__device__ float warp_max(float v) {
  // TODO: combine v with the other lanes' values, with __shfl_xor_sync: 5 steps for 32 lanes.
  return v;
}

// The sum of the 32 lanes' values of v, returned to every lane.
__device__ float warp_sum(float v) {
  // TODO: as warp_max, with + instead of max.
  return v;
}
//! [reduce]

//! [kernel]
__global__ void row_max_sum_kernel(const float* __restrict__ in, int rows, int cols, float* __restrict__ row_max,
                                   float* __restrict__ row_sum, float* __restrict__ out) {
  // TODO: one warp per row (its 32 threads are the lanes, lane = threadIdx.x % 32):
  //       1. each lane: the max and the sum of its columns of the row, c = lane, lane + 32, ...
  //          (a lane may have no column at all: start from the identities of max and +);
  //       2. combine the lanes' values with warp_max and warp_sum;
  //       3. lane 0 writes row_max[row] and row_sum[row];
  //       4. every lane writes out[row][c] = in[row][c] - the row's max for its columns.
  //       No shared memory: the shuffles are how the lanes share their values.
}
//! [kernel]

//! [launch]
void row_max_sum(const float* in, int rows, int cols, float* row_max, float* row_sum, float* out) {
  // TODO: a warp for every row: enough blocks of whole warps (or let each warp loop over rows).
  const int threads = 256, blocks = 1;
  row_max_sum_kernel<<<blocks, threads>>>(in, rows, cols, row_max, row_sum, out);
}
//! [launch]

}  // namespace student
