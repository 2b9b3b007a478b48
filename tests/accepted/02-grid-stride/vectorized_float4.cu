// Accepted variant: float4 loads when both pointers are 16-byte aligned, the tail by a second
// scalar launch; the scalar kernel otherwise.
#include "grid_stride_add.cuh"

#include <cstdint>

namespace student {

__global__ void add_inplace_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  const std::int64_t stride = std::int64_t(blockDim.x) * gridDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) y[i] += x[i];
}

__global__ void add_inplace_float4_kernel(const float4* __restrict__ x, float4* __restrict__ y, std::int64_t n4) {
  const std::int64_t stride = std::int64_t(blockDim.x) * gridDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const float4 a = x[i];
    float4 b = y[i];
    b.x += a.x;
    b.y += a.y;
    b.z += a.z;
    b.w += a.w;
    y[i] = b;
  }
}

void add_inplace_launch(const float* x, float* y, std::int64_t n, int blocks, int threads) {
  add_inplace_kernel<<<blocks, threads>>>(x, y, n);
}

void add_inplace(const float* x, float* y, std::int64_t n) {
  if (n <= 0) return;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int blocks = 4 * sms;
  const bool aligned = reinterpret_cast<std::uintptr_t>(x) % 16 == 0 && reinterpret_cast<std::uintptr_t>(y) % 16 == 0;
  if (!aligned) {
    add_inplace_launch(x, y, n, blocks, 256);
    return;
  }
  const std::int64_t n4 = n / 4;
  if (n4 > 0) add_inplace_float4_kernel<<<blocks, 256>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y), n4);
  if (n % 4) add_inplace_launch(x + 4 * n4, y + 4 * n4, n % 4, 1, 32);
}

}  // namespace student
