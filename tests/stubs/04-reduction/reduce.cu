// Chapter 04: shared-memory reduction. This is your file: fill in the TODOs, then grade it with
//   bash cmake/workbook.sh grade 04
// The lesson is chapters/04-reduction/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "reduce.cuh"

namespace student {

//! [kernel]
__global__ void reduce_sum_kernel(const float* __restrict__ in, float* __restrict__ sum, std::int64_t n) {
  extern __shared__ float partial[];  // blockDim.x floats: the launch's third argument
  // TODO: 1. each thread adds up its share of in[] in a register (a grid-stride loop);
  //       2. it stores that total in partial[threadIdx.x];
  //       3. the block combines partial[] as a tree, halving the active threads at every level,
  //          with __syncthreads() between levels (blockDim.x need not be a power of two);
  //       4. one thread adds the block's total into *sum with a single atomicAdd.
}
//! [kernel]

//! [launch]
void reduce_sum_launch(const float* in, float* sum, std::int64_t n, int threads) {
  // TODO: *sum must start at 0 (atomicAdd adds to whatever is there), and the grid needs
  //       enough blocks to keep every multiprocessor busy, but no more than n needs.
  const int blocks = 1;
  reduce_sum_kernel<<<blocks, threads, threads * sizeof(float)>>>(in, sum, n);
}
//! [launch]

//! [auto]
void reduce_sum(const float* in, float* sum, std::int64_t n) {
  // Optional: a faster configuration, or a faster kernel (the lesson's "further" section).
  reduce_sum_launch(in, sum, n, 256);
}
//! [auto]

}  // namespace student
