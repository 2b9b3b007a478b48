// Planted bug: a single block is launched whatever n is.
// expect: only the first 256 elements are right
#include "naive_add.cuh"

namespace student {

__global__ void naive_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void naive_add(const float* a, const float* b, float* c, int n, int threads_per_block) {
  if (n == 0) return;
  naive_add_kernel<<<1, threads_per_block>>>(a, b, c, n);
}

}  // namespace student
