// Planted bug: the sum is accumulated into the input a, then copied to c.
// expect: the kernel wrote its result into its input a
#include "naive_add.cuh"

namespace student {

__global__ void naive_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float* a_out = const_cast<float*>(a);
    a_out[i] += b[i];
    c[i] = a_out[i];
  }
}

void naive_add(const float* a, const float* b, float* c, int n, int threads_per_block) {
  if (n == 0) return;
  const int blocks = (n + threads_per_block - 1) / threads_per_block;
  naive_add_kernel<<<blocks, threads_per_block>>>(a, b, c, n);
}

}  // namespace student
