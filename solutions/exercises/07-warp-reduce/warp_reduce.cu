// Exercise 07, reference solution: each row's maximum and sum with one warp per row, combined
// with butterfly shuffles (__shfl_xor_sync), which leave the result in every lane: no shared
// memory and no __syncthreads(). Every lane then writes its own elements of out = in - max.
// A lane keeps the first kCache loads of its row in registers, so a row of up to
// 32 x kCache loads is read from memory once; a longer row's remainder is read a second time.
// Rows whose float4s are 16-byte aligned (cols % 4 == 0, aligned pointers) load float4s.
#include "warp_reduce.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace solution {

// ---- kernels ----
namespace {

constexpr unsigned kFullMask = 0xffffffffu;

// One load's worth of a row: a float, or a float4 (four consecutive columns).
__device__ __forceinline__ float max_of(float v) { return v; }
__device__ __forceinline__ float max_of(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }
__device__ __forceinline__ float sum_of(float v) { return v; }
__device__ __forceinline__ float sum_of(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ __forceinline__ float minus(float v, float m) { return v - m; }
__device__ __forceinline__ float4 minus(float4 v, float m) { return make_float4(v.x - m, v.y - m, v.z - m, v.w - m); }

}  // namespace

//! [reduce]
// Butterfly: after the step with offset o, every lane holds the combination of the 2o lanes
// whose ids differ from its own only in the bits below 2o; after offset 1, of all 32 lanes.
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(kFullMask, v, offset));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}
//! [reduce]

//! [kernel]
// V: float (any row) or float4 (rows of whole, 16-byte aligned float4s); n = loads per row.
// Warp w of the grid takes rows w, w + (warps in the grid), ...: a row is always a whole warp's,
// so every lane reaches every shuffle.
template <class V, int kCache>
__global__ void row_max_sum_kernel(const V* __restrict__ in, int rows, int n, float* __restrict__ row_max,
                                   float* __restrict__ row_sum, V* __restrict__ out) {
  const int lane = threadIdx.x % 32;
  const int warps = gridDim.x * (blockDim.x / 32);
  for (int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < rows; r += warps) {
    const V* row = in + std::int64_t(r) * n;
    V cache[kCache];
    float m = -INFINITY, s = 0.0f;  // the identities of max and +: a lane with no element changes nothing
#pragma unroll
    for (int k = 0; k < kCache; ++k) {
      if (lane + 32 * k < n) {
        cache[k] = row[lane + 32 * k];
        m = fmaxf(m, max_of(cache[k]));
        s += sum_of(cache[k]);
      }
    }
    for (int i = lane + 32 * kCache; i < n; i += 32) {  // rows longer than the cache
      const V v = row[i];
      m = fmaxf(m, max_of(v));
      s += sum_of(v);
    }
    m = warp_max(m);  // every lane now holds the row's maximum...
    s = warp_sum(s);  // ...and its sum
    if (lane == 0) {
      row_max[r] = m;
      row_sum[r] = s;
    }
    V* out_row = out + std::int64_t(r) * n;
#pragma unroll
    for (int k = 0; k < kCache; ++k)
      if (lane + 32 * k < n) out_row[lane + 32 * k] = minus(cache[k], m);
    for (int i = lane + 32 * kCache; i < n; i += 32) out_row[i] = minus(row[i], m);  // read again (L2)
  }
}
//! [kernel]

// ---- launcher ----
namespace {

template <class Kernel>
int grid_for(Kernel kernel, int threads, int rows) {
  int device = 0, sms = 0, per_sm = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0);
  const int needed = (rows + threads / 32 - 1) / (threads / 32);  // a warp per row
  return std::max(1, std::min(needed, sms * std::max(per_sm, 1)));
}

}  // namespace

//! [launch]
void row_max_sum(const float* in, int rows, int cols, float* row_max, float* row_sum, float* out) {
  if (rows == 0) return;
  constexpr int kThreads = 256;  // 8 warps: 8 rows at a time per block
  const bool aligned = cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(in) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
  if (aligned) {  // 8 float4 per lane cached: rows of up to 1024 floats are read once
    const int blocks = grid_for(row_max_sum_kernel<float4, 8>, kThreads, rows);
    row_max_sum_kernel<float4, 8><<<blocks, kThreads>>>(reinterpret_cast<const float4*>(in), rows, cols / 4, row_max,
                                                       row_sum, reinterpret_cast<float4*>(out));
  } else {  // 16 floats per lane cached: rows of up to 512 floats are read once
    const int blocks = grid_for(row_max_sum_kernel<float, 16>, kThreads, rows);
    row_max_sum_kernel<float, 16><<<blocks, kThreads>>>(in, rows, cols, row_max, row_sum, out);
  }
}
//! [launch]

}  // namespace solution
