// Chapter 02, reference solution: grid-stride loops, scalar for any launch configuration and
// float4-vectorised for the launcher that picks its own.
#include "grid_stride_add.cuh"

#include <cstdint>

namespace solution {

// ---- kernels ----
//! [kernel]
__global__ void add_inplace_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t n) {
  // 64-bit index: past 2^31 elements an int would overflow before the loop ends
  const std::int64_t stride = std::int64_t(blockDim.x) * gridDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) y[i] += x[i];
}
//! [kernel]

// One 16-byte load per array per step instead of four 4-byte ones: fewer memory instructions
// for the same bytes. The < 4 elements past the last whole float4 go to the first threads.
//! [vectorised]
__global__ void add_inplace_float4_kernel(const float4* __restrict__ x, float4* __restrict__ y, std::int64_t n4,
                                          const float* __restrict__ x_tail, float* __restrict__ y_tail, int tail) {
  const std::int64_t stride = std::int64_t(blockDim.x) * gridDim.x;
  const std::int64_t first = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::int64_t i = first; i < n4; i += stride) {
    const float4 a = x[i];
    float4 b = y[i];
    b.x += a.x;
    b.y += a.y;
    b.z += a.z;
    b.w += a.w;
    y[i] = b;
  }
  if (first < tail) y_tail[first] += x_tail[first];
}
//! [vectorised]

// ---- launchers ----
void add_inplace_launch(const float* x, float* y, std::int64_t n, int blocks, int threads) {
  add_inplace_kernel<<<blocks, threads>>>(x, y, n);
}

//! [auto]
void add_inplace(const float* x, float* y, std::int64_t n) {
  if (n <= 0) return;  // nothing to do, and a grid of 0 blocks would be an invalid launch
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  const int threads = 256;
  // Enough resident blocks to fill every multiprocessor (2048 threads each), no more than n needs.
  const std::int64_t resident = std::int64_t(sms) * (2048 / threads);
  const bool aligned = (reinterpret_cast<std::uintptr_t>(x) % 16 == 0) && (reinterpret_cast<std::uintptr_t>(y) % 16 == 0);
  if (aligned) {
    const std::int64_t n4 = n / 4;
    const int tail = static_cast<int>(n - 4 * n4);
    const std::int64_t needed = (n4 + threads - 1) / threads;
    const int blocks = static_cast<int>(needed < resident ? (needed > 0 ? needed : 1) : resident);
    add_inplace_float4_kernel<<<blocks, threads>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y),
                                                    n4, x + 4 * n4, y + 4 * n4, tail);
  } else {
    const std::int64_t needed = (n + threads - 1) / threads;
    const int blocks = static_cast<int>(needed < resident ? needed : resident);
    add_inplace_kernel<<<blocks, threads>>>(x, y, n);
  }
}
//! [auto]

}  // namespace solution
