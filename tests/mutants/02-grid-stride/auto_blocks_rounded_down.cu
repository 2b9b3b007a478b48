// Planted bug: the launcher's block count is n / 256, which is 0 for n < 256.
// expect: cudaErrorInvalidValue \(invalid argument\).*is n = 0 handled before the launch
#include "grid_stride_add.cuh"

namespace student {

__global__ void add_inplace_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  const std::int64_t stride = std::int64_t(blockDim.x) * gridDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) y[i] += x[i];
}

void add_inplace_launch(const float* x, float* y, std::int64_t n, int blocks, int threads) {
  add_inplace_kernel<<<blocks, threads>>>(x, y, n);
}

void add_inplace(const float* x, float* y, std::int64_t n) {
  if (n <= 0) return;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const std::int64_t blocks = n / 256, resident = 8 * std::int64_t(sms);
  add_inplace_launch(x, y, n, static_cast<int>(blocks < resident ? blocks : resident), 256);
}

}  // namespace student
