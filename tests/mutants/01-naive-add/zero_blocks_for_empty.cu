// Planted bug: n = 0 is not handled: the launch asks for 0 blocks, which CUDA rejects as an invalid argument.
// expect: cudaErrorInvalidValue \(invalid argument\).*is n = 0 handled before the launch
#include "naive_add.cuh"

namespace student {

__global__ void naive_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

void naive_add(const float* a, const float* b, float* c, int n, int threads_per_block) {
  const int blocks = (n + threads_per_block - 1) / threads_per_block;
  naive_add_kernel<<<blocks, threads_per_block>>>(a, b, c, n);
}

}  // namespace student
