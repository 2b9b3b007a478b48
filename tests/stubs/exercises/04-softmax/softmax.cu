// Exercise 04: a numerically stable row softmax. This is your file: fill in the TODOs, then grade
// it with
//   bash cmake/workbook.sh grade x04
// The task is exercises/04-softmax/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "softmax.cuh"

#include <cmath>

namespace student {

constexpr int kThreads = 256;  // threads per block; one block per row here (choose your own)

//! [kernel]
__global__ void softmax_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  // TODO: 1. one pass over the row: each thread keeps a running maximum m (start at -INFINITY)
  //          and the sum s of exp(x - m) over its elements; when an element is larger than m,
  //          rescale s by exp(old m - new m) before adding;
  //       2. combine the threads' (m, s) pairs into the row's (the same rescaling: shuffles
  //          within a warp, shared memory between warps);
  //       3. a second pass writes out[r][c] = exp(in[r][c] - m) / s.
}
//! [kernel]

//! [launch]
void softmax(const float* in, float* out, int rows, int cols) {
  // TODO: a block (or a warp) for every row; none when rows is 0.
  const int blocks = 1;
  softmax_kernel<<<blocks, kThreads>>>(in, out, rows, cols);
}
//! [launch]

}  // namespace student
