// Exercise 10: the k largest elements of every row. This is your file: fill in the TODOs, then
// grade it with
//   bash cmake/workbook.sh grade x10
// The task is exercises/10-topk/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "topk.cuh"

#include <climits>
#include <cmath>

namespace student {

//! [better]
// The contract's order: a larger value first; of equal values, the lower column first.
__device__ bool better(float v, int i, float w, int j) {
  // TODO: true when (v, i) comes before (w, j).
  return false;
}
//! [better]

//! [kernel]
__global__ void topk_kernel(const float* __restrict__ in, int rows, int cols, int k, float* __restrict__ values,
                            int* __restrict__ indices) {
  // TODO: one warp per row. The warp keeps the best k (value, column) pairs seen so far, sorted
  //       best first: lane j holds the j-th best (start every lane with an empty entry that any
  //       element beats: -INFINITY and column INT_MAX).
  //       1. for each step of 32 columns, each lane takes one column (a lane past the row's end
  //          takes nothing, but still joins the warp's votes and shuffles);
  //       2. the lanes whose element beats the k-th entry (__ballot_sync) are inserted one at a time:
  //          the entries better than the newcomer stay, the newcomer takes the next lane, the rest
  //          move down one lane (__shfl_up_sync);
  //       3. at the end, lane j < k writes values[row * k + j] and indices[row * k + j].
}
//! [kernel]

//! [launch]
void topk(const float* in, int rows, int cols, int k, float* values, int* indices) {
  // TODO: a warp for every row.
  const int threads = 256, blocks = 1;
  topk_kernel<<<blocks, threads>>>(in, rows, cols, k, values, indices);
}
//! [launch]

}  // namespace student
