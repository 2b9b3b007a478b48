// Chapter 01: naive add. This is your file: fill in the two TODOs, then grade it with
//   bash cmake/workbook.sh grade 01
// The lesson is chapters/01-naive-add/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "naive_add.cuh"

namespace student {

//! [kernel]
__global__ void naive_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 int n) {
  // TODO: work out this thread's element i from blockIdx.x, blockDim.x and threadIdx.x,
  //       and if i is inside the array, set c[i] = a[i] + b[i].
}
//! [kernel]

//! [launcher]
void naive_add(const float* a, const float* b, float* c, int n, int threads_per_block) {
  // TODO: enough blocks of threads_per_block threads for every element to get a thread.
  int blocks = 1;
  naive_add_kernel<<<blocks, threads_per_block>>>(a, b, c, n);
}
//! [launcher]

}  // namespace student
