// Planted bug: blockIdx is left out of the index: every block writes the first block's elements.
// expect: only the first 256 elements are right: only one block ran, or every block wrote the same
#include "naive_add.cuh"

namespace student {

__global__ void naive_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 int n) {
  const int i = threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void naive_add(const float* a, const float* b, float* c, int n, int threads_per_block) {
  if (n == 0) return;
  const int blocks = (n + threads_per_block - 1) / threads_per_block;
  naive_add_kernel<<<blocks, threads_per_block>>>(a, b, c, n);
}

}  // namespace student
