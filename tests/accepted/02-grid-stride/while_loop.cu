// Accepted variant: a while loop, and a grid capped at 4 blocks per multiprocessor.
#include "grid_stride_add.cuh"

namespace student {

__global__ void add_inplace_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  while (i < n) {
    y[i] = y[i] + x[i];
    i += std::int64_t(gridDim.x) * blockDim.x;
  }
}

void add_inplace_launch(const float* x, float* y, std::int64_t n, int blocks, int threads) {
  add_inplace_kernel<<<blocks, threads>>>(x, y, n);
}

void add_inplace(const float* x, float* y, std::int64_t n) {
  if (n == 0) return;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const std::int64_t needed = (n + 511) / 512, cap = 4 * std::int64_t(sms);
  add_inplace_launch(x, y, n, static_cast<int>(needed < cap ? needed : cap), 512);
}

}  // namespace student
