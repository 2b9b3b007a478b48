// Accepted variant: each thread adds two elements, with half as many blocks.
#include "naive_add.cuh"

namespace student {

__global__ void naive_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 int n) {
  const int i = 2 * (blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) c[i] = a[i] + b[i];
  if (i + 1 < n) c[i + 1] = a[i + 1] + b[i + 1];
}

void naive_add(const float* a, const float* b, float* c, int n, int threads_per_block) {
  if (n == 0) return;
  const int per_block = 2 * threads_per_block;
  naive_add_kernel<<<(n + per_block - 1) / per_block, threads_per_block>>>(a, b, c, n);
}

}  // namespace student
