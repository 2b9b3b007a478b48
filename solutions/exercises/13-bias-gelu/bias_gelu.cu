// Exercise 13, reference solution: out = resid + scale * gelu(x + bias[column]), one read of x
// and resid and one write of out per element, nothing in between.
//
// The matrix is walked as one flat array of rows * cols elements with a grid-stride loop. Each
// thread keeps the column of its element instead of dividing the index by cols at every step:
// one `%` when it starts, then the column advances by (the grid's stride) % cols and wraps once.
// When x, resid and out are 16-byte aligned, elements move as float4s (the four columns of a
// float4 may wrap into the next row: each takes its own bias), and the last n % 4 elements are a
// scalar tail; otherwise every element is a scalar.
#include "bias_gelu.cuh"

#include <algorithm>
#include <cstdint>

namespace solution {

namespace {

// The exact GELU: v * Phi(v), Phi the standard normal distribution function.
__device__ __forceinline__ float gelu(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)); }

__device__ __forceinline__ float fused(float x, float b, float r, float scale) { return fmaf(scale, gelu(x + b), r); }

}  // namespace

//! [kernel]
// Flat elements i = 4 * (thread's index), stepping 4 * (threads in the grid), as float4s; n4 =
// float4s in the matrix. `step` = (4 * threads in the grid) % cols, computed once by the launcher.
__global__ void __launch_bounds__(256)
    bias_gelu_vec4_kernel(const float4* __restrict__ x, const float* __restrict__ bias,
                          const float4* __restrict__ resid, float4* __restrict__ out, std::int64_t n4, int cols,
                          int step, float scale) {
  const std::int64_t first = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  int c = int(first * 4 % cols);  // the column of this thread's first element
  for (std::int64_t k = first; k < n4; k += stride) {
    const float4 a = x[k], r = resid[k];
    int c1 = c + 1 == cols ? 0 : c + 1, c2 = c1 + 1 == cols ? 0 : c1 + 1, c3 = c2 + 1 == cols ? 0 : c2 + 1;
    out[k] = make_float4(fused(a.x, bias[c], r.x, scale), fused(a.y, bias[c1], r.y, scale),
                         fused(a.z, bias[c2], r.z, scale), fused(a.w, bias[c3], r.w, scale));
    c += step;
    if (c >= cols) c -= cols;
  }
}

// The same with one float per step (any alignment), from element `from` on: the scalar path
// (from = 0) and the float4 path's tail (from = 4 * n4, fewer than 4 elements).
__global__ void __launch_bounds__(256)
    bias_gelu_kernel(const float* __restrict__ x, const float* __restrict__ bias, const float* __restrict__ resid,
                     float* __restrict__ out, std::int64_t from, std::int64_t n, int cols, int step, float scale) {
  const std::int64_t first = from + std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  int c = int(first % cols);
  for (std::int64_t i = first; i < n; i += stride) {
    out[i] = fused(x[i], bias[c], resid[i], scale);
    c += step;
    if (c >= cols) c -= cols;
  }
}
//! [kernel]

namespace {

int multiprocessors() {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return sms;
}

}  // namespace

//! [launch]
void bias_gelu_residual(const float* x, const float* bias, const float* resid, float* out, int rows, int cols,
                        float scale) {
  const std::int64_t n = std::int64_t(rows) * cols;
  if (n == 0) return;
  constexpr int kThreads = 256;
  const std::int64_t most = std::int64_t(multiprocessors()) * 8;  // blocks resident at once
  auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  if (aligned(x) && aligned(resid) && aligned(out) && n >= 4) {
    const std::int64_t n4 = n / 4;
    const int blocks = int(std::min((n4 + kThreads - 1) / kThreads, most));
    const int step = int(4 * std::int64_t(blocks) * kThreads % cols);
    bias_gelu_vec4_kernel<<<blocks, kThreads>>>(reinterpret_cast<const float4*>(x), bias,
                                                reinterpret_cast<const float4*>(resid), reinterpret_cast<float4*>(out),
                                                n4, cols, step, scale);
    if (n % 4) bias_gelu_kernel<<<1, 32>>>(x, bias, resid, out, 4 * n4, n, cols, 32 % cols, scale);  // the tail
  } else {
    const int blocks = int(std::min((n + kThreads - 1) / kThreads, most));
    bias_gelu_kernel<<<blocks, kThreads>>>(x, bias, resid, out, 0, n, cols, int(std::int64_t(blocks) * kThreads % cols),
                                           scale);
  }
}
//! [launch]

}  // namespace solution
