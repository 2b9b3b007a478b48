// Exercise 06, reference solution: a 1-D convolution with the filter in constant memory.
//
// The filter is copied into a `__constant__` array before the launch. At each tap, every thread of
// a warp reads the same filter element: constant memory serves such a read to the whole warp at
// once, from its own cache, without taking space in shared memory or registers.
//
// A block computes a tile of kTile consecutive outputs. It first copies the input its outputs need
// into shared memory: the tile's own kTile elements and a halo of `radius` elements on each side
// (0 outside the signal), so each input element is read from global memory about once, not
// 2 radius + 1 times. Each thread then computes kPerThread outputs kThreads apart: at each tap it
// reads the filter element once and uses it for all of them, and the 32 lanes of a warp read 32
// consecutive floats of the tile (no bank conflicts).
#include "conv1d.cuh"

#include <cstdint>

namespace solution {

namespace {

constexpr int kThreads = 256;
constexpr int kPerThread = 4;
constexpr int kTile = kThreads * kPerThread;  // outputs per block

}  // namespace

//! [kernel]
__constant__ float c_filter[2 * kConvMaxRadius + 1];

__global__ void __launch_bounds__(kThreads) conv1d_kernel(const float* __restrict__ in, float* __restrict__ out, int n,
                                                          int radius) {
  __shared__ float tile[kTile + 2 * kConvMaxRadius];  // tile[j] = in[start - radius + j]
  const std::int64_t start = std::int64_t(blockIdx.x) * kTile;
  const int width = kTile + 2 * radius;
  for (int j = threadIdx.x; j < width; j += kThreads) {
    const std::int64_t src = start - radius + j;
    tile[j] = src >= 0 && src < n ? in[src] : 0.0f;  // the halo past either end of the signal is 0
  }
  __syncthreads();

  float acc[kPerThread];
#pragma unroll
  for (int p = 0; p < kPerThread; ++p) acc[p] = 0.0f;
  for (int k = 0; k <= 2 * radius; ++k) {
    const float f = c_filter[k];  // the same address in every lane: one constant-cache read per warp
#pragma unroll
    for (int p = 0; p < kPerThread; ++p) acc[p] = fmaf(f, tile[threadIdx.x + p * kThreads + k], acc[p]);
  }
#pragma unroll
  for (int p = 0; p < kPerThread; ++p) {
    const std::int64_t i = start + threadIdx.x + p * kThreads;
    if (i < n) out[i] = acc[p];
  }
}
//! [kernel]

//! [launch]
void conv1d(const float* in, float* out, int n, const float* filter, int radius) {
  if (n == 0) return;
  // The filter is device memory: a device-to-device copy into the constant array, on the default
  // stream, so it is there before the kernel starts.
  cudaMemcpyToSymbol(c_filter, filter, (2 * radius + 1) * sizeof(float), 0, cudaMemcpyDeviceToDevice);
  const int blocks = int((std::int64_t(n) + kTile - 1) / kTile);
  conv1d_kernel<<<blocks, kThreads>>>(in, out, n, radius);
}
//! [launch]

}  // namespace solution
