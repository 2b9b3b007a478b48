// Accepted: a block of 128 threads per row for both kernels, the threads' values combined by a
// tree in shared memory. The quantizer divides by the scale, rintf(x / scale), as the contract
// words it (the solution multiplies by 127 / m); the GEMV dequantizes every weight,
// (W[r][c] * scale[r]) * x[c], instead of scaling the row's sum once.
#include "int8_quant.cuh"

#include <cmath>

namespace student {

constexpr int kThreads = 128;

__global__ void quantize_kernel(const float* __restrict__ x, std::int8_t* __restrict__ q, float* __restrict__ scale,
                                int cols, float clip) {
  __shared__ float partial[kThreads];
  const long long base = static_cast<long long>(blockIdx.x) * cols;
  float m = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) m = fmaxf(m, fabsf(x[base + c]));
  partial[threadIdx.x] = m;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] = fmaxf(partial[threadIdx.x], partial[threadIdx.x + half]);
    __syncthreads();
  }
  m = fminf(partial[0], clip);
  const float s = m / 127.0f;
  if (threadIdx.x == 0) scale[blockIdx.x] = s;
  for (int c = threadIdx.x; c < cols; c += kThreads) {
    float v = s == 0.0f ? 0.0f : rintf(x[base + c] / s);
    v = fminf(fmaxf(v, -127.0f), 127.0f);
    q[base + c] = static_cast<std::int8_t>(v);
  }
}

__global__ void int8_gemv_kernel(const std::int8_t* __restrict__ W, const float* __restrict__ scale,
                                 const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float partial[kThreads];
  const long long base = static_cast<long long>(blockIdx.x) * cols;
  const float s = scale[blockIdx.x];
  float acc = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) acc += (float(W[base + c]) * s) * x[c];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}

void quantize_rows(const float* x, std::int8_t* q, float* scale, int rows, int cols, float clip) {
  if (rows == 0) return;
  quantize_kernel<<<rows, kThreads>>>(x, q, scale, cols, clip);
}

void int8_gemv(const std::int8_t* W, const float* scale, const float* x, float* y, int rows, int cols) {
  if (rows == 0) return;
  int8_gemv_kernel<<<rows, kThreads>>>(W, scale, x, y, cols);
}

}  // namespace student
