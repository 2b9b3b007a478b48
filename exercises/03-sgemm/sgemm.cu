// Exercise 03: tiled SGEMM, C = A B for row-major matrices of any shape. This is your file: fill
// in the TODOs, then grade it with
//   bash cmake/workbook.sh grade x03
// The task is exercises/03-sgemm/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "sgemm.cuh"

namespace student {

constexpr int kTile = 64;     // a block computes a kTile x kTile tile of C (choose your own)
constexpr int kSlice = 8;     // K is walked in slices of kSlice
constexpr int kThreads = 256; // threads per block: kTile * kTile / kThreads = 16 outputs per thread

//! [kernel]
__global__ void sgemm_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                             int N, int K) {
  // TODO: 1. declare the block's slices in shared memory: kTile rows of A by kSlice, kSlice rows
  //          of B by kTile;
  //       2. give each thread a small block of outputs (4 x 4 here), accumulated in registers;
  //       3. for each slice of K: copy the slices of A and B into shared memory (0 for an element
  //          outside A or B), wait for the whole block, multiply them into the thread's outputs,
  //          and wait again before the next slice overwrites them;
  //       4. store the thread's outputs that lie inside C (row < M, column < N).
}
//! [kernel]

//! [launch]
void sgemm(const float* A, const float* B, float* C, int M, int N, int K) {
  // TODO: a block for every tile of C: enough in x for N columns, in y for M rows (none when M or N is 0).
  const dim3 grid(1, 1);
  sgemm_kernel<<<grid, kThreads>>>(A, B, C, M, N, K);
}
//! [launch]

}  // namespace student
