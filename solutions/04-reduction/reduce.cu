// Chapter 04, reference solution: a shared-memory tree for any block size, and a faster
// float4 + warp-shuffle version for the launcher that picks its own configuration.
#include "reduce.cuh"

#include <algorithm>
#include <cstdint>

namespace solution {

// ---- kernels ----
//! [kernel]
__global__ void reduce_sum_kernel(const float* __restrict__ in, float* __restrict__ sum, std::int64_t n) {
  extern __shared__ float partial[];  // blockDim.x floats
  float acc = 0.0f;                   // fp32 accumulate: the error bound in the grader assumes no more
  const std::int64_t stride = std::int64_t(blockDim.x) * gridDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) acc += in[i];
  partial[threadIdx.x] = acc;
  __syncthreads();  // every partial[] is written before the tree reads it

  // Convergent tree: the first `active - half` threads add the upper part onto the lower one.
  // Rounding half up keeps the odd element of a non-power-of-two level for the next level.
  for (unsigned active = blockDim.x; active > 1;) {
    const unsigned half = (active + 1) / 2;
    if (threadIdx.x < active - half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();  // a level is complete before the next one reads it
    active = half;
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);  // one atomic per block
}
//! [kernel]

//! [fast]
// kUnroll float4 loads in flight per thread before any is added; the block's 8..32 warps reduce
// with shuffles, then one warp combines their totals: two __syncthreads-free levels.
template <int kThreads, int kUnroll>
__global__ void __launch_bounds__(kThreads)
    reduce_sum_float4_kernel(const float4* __restrict__ in4, std::int64_t n4, const float* __restrict__ tail,
                             int tail_n, float* __restrict__ sum) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "whole warps");
  float acc[kUnroll] = {};
  const std::int64_t stride = std::int64_t(kThreads) * gridDim.x;
  std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < n4; i += kUnroll * stride) {
    float4 v[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) v[k] = in4[i + k * stride];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) acc[k] += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  }
  for (; i < n4; i += stride) {
    const float4 v = in4[i];
    acc[0] += (v.x + v.y) + (v.z + v.w);
  }
  float total = 0.0f;
#pragma unroll
  for (int k = 0; k < kUnroll; ++k) total += acc[k];
  if (blockIdx.x == 0 && int(threadIdx.x) < tail_n) total += tail[threadIdx.x];  // the < 4 leftover elements

  for (int offset = 16; offset > 0; offset /= 2) total += __shfl_down_sync(0xffffffffu, total, offset);
  __shared__ float warp_totals[kThreads / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_totals[warp] = total;
  __syncthreads();
  if (warp == 0) {
    total = lane < kThreads / 32 ? warp_totals[lane] : 0.0f;  // 0 is the identity for the missing warps
    for (int offset = 16; offset > 0; offset /= 2) total += __shfl_down_sync(0xffffffffu, total, offset);
    if (lane == 0) atomicAdd(sum, total);
  }
}
//! [fast]

// ---- launchers ----
namespace {

int multiprocessors() {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return sms;
}

}  // namespace

//! [launch]
void reduce_sum_launch(const float* in, float* sum, std::int64_t n, int threads) {
  cudaMemsetAsync(sum, 0, sizeof(float));  // atomics add onto *sum: it starts at 0
  if (n == 0) return;
  // Enough blocks to fill every multiprocessor (2048 threads each), no more than n needs.
  const std::int64_t resident = std::int64_t(multiprocessors()) * std::max(1, 2048 / threads);
  const std::int64_t needed = (n + threads - 1) / threads;
  const int blocks = static_cast<int>(std::min(resident, needed));
  reduce_sum_kernel<<<blocks, threads, threads * sizeof(float)>>>(in, sum, n);
}
//! [launch]

template <int kThreads, int kUnroll, int kBlocksPerSm>
void reduce_sum_float4(const float* in, float* sum, std::int64_t n) {
  cudaMemsetAsync(sum, 0, sizeof(float));
  if (n == 0) return;
  const std::int64_t n4 = n / 4;
  const std::int64_t resident = std::int64_t(multiprocessors()) * kBlocksPerSm;
  const std::int64_t needed = std::max<std::int64_t>((n4 + kThreads - 1) / kThreads, 1);
  reduce_sum_float4_kernel<kThreads, kUnroll><<<static_cast<int>(std::min(resident, needed)), kThreads>>>(
      reinterpret_cast<const float4*>(in), n4, in + 4 * n4, static_cast<int>(n - 4 * n4), sum);
}

//! [auto]
void reduce_sum(const float* in, float* sum, std::int64_t n) {
  if (reinterpret_cast<std::uintptr_t>(in) % 16 != 0) {  // float4 loads need 16-byte alignment
    reduce_sum_launch(in, sum, n, 256);
    return;
  }
  reduce_sum_float4<256, 4, 16>(in, sum, n);  // measured on an H200: 1.01x cub::DeviceReduce::Sum at 2^28
}
//! [auto]

}  // namespace solution
