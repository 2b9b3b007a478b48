// Exercise 16, reference solution: per-row absmax int8 quantization, and an int8 GEMV that
// dequantizes in the kernel.
//
// quantize_rows: a warp per row. Pass 1, each lane's largest |x| over its columns, then the
// warp's (shuffles); m = min(that, clip). Pass 2 (the row again, mostly from L1 and L2):
// q = rint(clamp(x * 127 / m, -127, 127)), clamped while still a float (a float past the int
// range has no defined conversion), rounded to nearest even. When cols % 4 == 0, x is 16-byte
// aligned and q 4-byte aligned, a lane moves a float4 of x and a char4 of q at a time.
//
// int8_gemv: a warp per row, as exercise 08's SGEMV, but a row is 1 byte per weight: when
// cols % 16 == 0 and W and x are 16-byte aligned, a lane loads 16 weights (one int4) and the
// 16 floats of x they meet, 4 loads of weights in flight; otherwise single bytes, 8 in flight.
// The weights are converted to float and summed unscaled; the row's scale multiplies the sum
// once (the same as dequantizing every weight, W[r][c] * scale[r], with one multiply per row).
#include "int8_quant.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace solution {

namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kThreads = 256;  // 8 warps per block: 8 rows at a time

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

__device__ __forceinline__ float largest(float v) { return fabsf(v); }
__device__ __forceinline__ float largest(float4 v) {
  return fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w)));
}

// x * inv rounded to nearest even, clamped to [-127, 127] before the conversion.
__device__ __forceinline__ signed char quantize(float v, float inv) {
  return static_cast<signed char>(__float2int_rn(fminf(fmaxf(v * inv, -127.0f), 127.0f)));
}
__device__ __forceinline__ signed char quantized(float v, float inv) { return quantize(v, inv); }
__device__ __forceinline__ char4 quantized(float4 v, float inv) {
  return make_char4(quantize(v.x, inv), quantize(v.y, inv), quantize(v.z, inv), quantize(v.w, inv));
}
// Weight k (0 to 3) of four packed in a 32-bit word, as a float.
__device__ __forceinline__ float weight(unsigned word, int k) {
  return float(static_cast<signed char>(word >> (8 * k)));
}

int multiprocessors() {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return sms;
}

int blocks_for(int rows) {  // as many as the multiprocessors hold at once, no more than the rows need
  return std::max(1, std::min((rows + kThreads / 32 - 1) / (kThreads / 32), multiprocessors() * 8));
}

bool aligned(const void* p, int bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

}  // namespace

//! [quantize]
// V = float (Q = signed char) or float4 (Q = char4); n = items per row. Warp w of the grid takes
// rows w, w + (warps in the grid), ...
template <class V, class Q>
__global__ void __launch_bounds__(kThreads)
    quantize_kernel(const V* __restrict__ x, Q* __restrict__ q, float* __restrict__ scale, int rows, int n,
                    float clip) {
  const int lane = threadIdx.x % 32;
  const int warps = gridDim.x * (blockDim.x / 32);
  for (int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < rows; r += warps) {
    const V* row = x + std::int64_t(r) * n;
    Q* out = q + std::int64_t(r) * n;
    float m = 0.0f;
    for (int i = lane; i < n; i += 32) m = fmaxf(m, largest(row[i]));
    m = fminf(warp_max(m), clip);  // the row's absmax, clipped: every lane has it
    if (lane == 0) scale[r] = m / 127.0f;
    if (m == 0.0f) {  // a row of zeros: scale 0, q 0 (127 / m would be infinite)
      for (int i = lane; i < n; i += 32) out[i] = Q{};
      continue;
    }
    const float inv = 127.0f / m;
    for (int i = lane; i < n; i += 32) out[i] = quantized(row[i], inv);
  }
}
//! [quantize]

//! [gemv]
// kWidth weights per load: 16 (an int4 of W, 4 float4s of x) or 1 (a byte); n = loads per row.
template <int kWidth, int kUnroll>
__global__ void __launch_bounds__(kThreads)
    int8_gemv_kernel(const std::int8_t* __restrict__ W, const float* __restrict__ scale,
                     const float* __restrict__ x, float* __restrict__ y, int rows, int n) {
  const int lane = threadIdx.x % 32;
  const int warps = gridDim.x * (blockDim.x / 32);
  for (int r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; r < rows; r += warps) {
    const std::int8_t* row = W + std::int64_t(r) * n * kWidth;
    float acc[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc[u] = 0.0f;
    int i = lane;
    if constexpr (kWidth == 16) {
      auto dot16 = [&](int4 w, int k, float a) {  // the 16 weights of w times x[16 k .. 16 k + 15]
        const float4* xv = reinterpret_cast<const float4*>(x) + 4 * k;
        const unsigned words[4] = {unsigned(w.x), unsigned(w.y), unsigned(w.z), unsigned(w.w)};
#pragma unroll
        for (int j = 0; j < 4; ++j) {  // byte k of a word is weight 4 j + k (little-endian)
          const float4 v = xv[j];
          a = fmaf(weight(words[j], 0), v.x, a);
          a = fmaf(weight(words[j], 1), v.y, a);
          a = fmaf(weight(words[j], 2), v.z, a);
          a = fmaf(weight(words[j], 3), v.w, a);
        }
        return a;
      };
      const int4* rv = reinterpret_cast<const int4*>(row);
      for (; i + 32 * (kUnroll - 1) < n; i += 32 * kUnroll) {
        int4 w[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) w[u] = rv[i + 32 * u];  // kUnroll loads of weights in flight
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) acc[u] = dot16(w[u], i + 32 * u, acc[u]);
      }
      for (; i < n; i += 32) acc[0] = dot16(rv[i], i, acc[0]);  // the last, partial step
    } else {
      for (; i + 32 * (kUnroll - 1) < n; i += 32 * kUnroll) {
        float w[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) w[u] = float(row[i + 32 * u]);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) acc[u] = fmaf(w[u], x[i + 32 * u], acc[u]);
      }
      for (; i < n; i += 32) acc[0] = fmaf(float(row[i]), x[i], acc[0]);  // the last, partial step
    }
    float s = 0.0f;
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) s += acc[u];
    s = warp_sum(s);
    if (lane == 0) y[r] = scale[r] * s;  // dequantized: the row's scale, once
  }
}
//! [gemv]

//! [launch]
void quantize_rows(const float* x, std::int8_t* q, float* scale, int rows, int cols, float clip) {
  if (rows == 0) return;
  if (cols % 4 == 0 && aligned(x, 16) && aligned(q, 4)) {
    quantize_kernel<<<blocks_for(rows), kThreads>>>(reinterpret_cast<const float4*>(x), reinterpret_cast<char4*>(q),
                                                    scale, rows, cols / 4, clip);
  } else {
    quantize_kernel<<<blocks_for(rows), kThreads>>>(x, reinterpret_cast<signed char*>(q), scale, rows, cols, clip);
  }
}

void int8_gemv(const std::int8_t* W, const float* scale, const float* x, float* y, int rows, int cols) {
  if (rows == 0) return;
  if (cols % 16 == 0 && aligned(W, 16) && aligned(x, 16)) {
    int8_gemv_kernel<16, 4><<<blocks_for(rows), kThreads>>>(W, scale, x, y, rows, cols / 16);
  } else {
    int8_gemv_kernel<1, 8><<<blocks_for(rows), kThreads>>>(W, scale, x, y, rows, cols);
  }
}
//! [launch]

}  // namespace solution
