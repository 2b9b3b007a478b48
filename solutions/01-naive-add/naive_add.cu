// Chapter 01, reference solution: one thread per element.
#include "naive_add.cuh"

namespace solution {

// ---- kernel ----
//! [kernel]
__global__ void naive_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;  // this thread's element
  if (i < n) c[i] = a[i] + b[i];                          // the last block can reach past n
}
//! [kernel]

// ---- launcher ----
//! [launcher]
void naive_add(const float* a, const float* b, float* c, int n, int threads_per_block) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch
  const int blocks = (n + threads_per_block - 1) / threads_per_block;  // round up: cover the tail
  naive_add_kernel<<<blocks, threads_per_block>>>(a, b, c, n);
}
//! [launcher]

}  // namespace solution
