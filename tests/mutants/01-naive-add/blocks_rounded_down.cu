// Planted bug: the block count is rounded down: the last, partial block never runs.
// expect: the last partial block is missing
#include "naive_add.cuh"

namespace student {

__global__ void naive_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void naive_add(const float* a, const float* b, float* c, int n, int threads_per_block) {
  if (n < threads_per_block) {
    naive_add_kernel<<<1, threads_per_block>>>(a, b, c, n);  // keeps small n working: only the tail is lost
    return;
  }
  naive_add_kernel<<<n / threads_per_block, threads_per_block>>>(a, b, c, n);
}

}  // namespace student
