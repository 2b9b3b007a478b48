// Exercise 08, reference solution: y = A x for a row-major A, one warp per row. The 32 lanes of
// a warp read 32 consecutive elements of the row at each step (coalesced: a warp request is 4
// sectors of 32 bytes, or 16 with float4 loads, every byte used), each keeps kUnroll partial
// sums so that kUnroll loads are in flight, and the lanes' sums are combined with shuffles.
// Rows whose float4s are 16-byte aligned (cols % 4 == 0, aligned A and x) load float4s.
#include "sgemv.cuh"

#include <algorithm>
#include <cstdint>

namespace solution {

// ---- kernels ----
namespace {

constexpr unsigned kFullMask = 0xffffffffu;

__device__ __forceinline__ float dot(float a, float b, float acc) { return fmaf(a, b, acc); }
__device__ __forceinline__ float dot(float4 a, float4 b, float acc) {
  return fmaf(a.w, b.w, fmaf(a.z, b.z, fmaf(a.y, b.y, fmaf(a.x, b.x, acc))));
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}

}  // namespace

//! [kernel]
// V: float (any row) or float4 (rows of whole, aligned float4s); n = loads per row.
// Warp w of the grid takes rows w, w + (warps in the grid), ...
template <class V, int kUnroll>
__global__ void __launch_bounds__(256)
    sgemv_kernel(const V* __restrict__ A, const V* __restrict__ x, float* __restrict__ y, int rows, int n) {
  const int lane = threadIdx.x % 32;
  const int warps = gridDim.x * (blockDim.x / 32);
  for (int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < rows; r += warps) {
    auto row = A + std::int64_t(r) * n;
    float acc[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc[u] = 0.0f;
    int i = lane;
    for (; i + 32 * (kUnroll - 1) < n; i += 32 * kUnroll) {
      V a[kUnroll], b[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {  // kUnroll loads of the row in flight before any is used
        a[u] = row[i + 32 * u];
        b[u] = x[i + 32 * u];
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) acc[u] = dot(a[u], b[u], acc[u]);
    }
    for (; i < n; i += 32) acc[0] = dot(row[i], x[i], acc[0]);  // the last, partial step
    float s = 0.0f;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) s += acc[u];
    s = warp_sum(s);  // every lane holds the row's dot product
    if (lane == 0) y[r] = s;
  }
}
//! [kernel]

// ---- launcher ----
namespace {

int multiprocessors() {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return sms;
}

}  // namespace

//! [launch]
void sgemv(const float* A, const float* x, float* y, int rows, int cols) {
  if (rows == 0) return;
  constexpr int kThreads = 256;  // 8 warps: 8 rows at a time per block
  // As many blocks as the multiprocessors hold at once (8 of 256 threads each), no more than the rows need.
  const int blocks = std::max(1, std::min((rows + kThreads / 32 - 1) / (kThreads / 32), multiprocessors() * 8));
  const bool aligned = cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(A) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(x) % 16 == 0;
  if (aligned) {
    sgemv_kernel<float4, 4><<<blocks, kThreads>>>(reinterpret_cast<const float4*>(A),
                                                  reinterpret_cast<const float4*>(x), y, rows, cols / 4);
  } else {
    sgemv_kernel<float, 8><<<blocks, kThreads>>>(A, x, y, rows, cols);
  }
}
//! [launch]

}  // namespace solution
