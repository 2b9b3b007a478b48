// Accepted: the stub completed the plain way. The n x n scores in scratch memory, a thread per
// score, a warp per row for the softmax (with the row's maximum subtracted), a thread per output.
#include "attention.cuh"

#include <cmath>
#include <cstddef>

namespace student {

__global__ void scores_kernel(const float* __restrict__ Q, const float* __restrict__ K, float* __restrict__ s,
                              int n, int d) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || j >= n) return;
  float dot = 0.0f;
  for (int c = 0; c < d; ++c) dot += Q[static_cast<std::size_t>(i) * d + c] * K[static_cast<std::size_t>(j) * d + c];
  s[static_cast<std::size_t>(i) * n + j] = dot / sqrtf(static_cast<float>(d));
}

__global__ void softmax_kernel(float* __restrict__ s, int n) {
  const int lane = threadIdx.x % 32;
  const long long i = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (i >= n) return;  // the whole warp
  float* row = s + i * n;
  float m = -INFINITY;
  for (int j = lane; j < n; j += 32) m = fmaxf(m, row[j]);
  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float sum = 0.0f;
  for (int j = lane; j < n; j += 32) {
    row[j] = expf(row[j] - m);
    sum += row[j];
  }
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  for (int j = lane; j < n; j += 32) row[j] /= sum;
}

__global__ void output_kernel(const float* __restrict__ s, const float* __restrict__ V, float* __restrict__ O, int n,
                              int d) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= n || c >= d) return;
  float acc = 0.0f;
  for (int j = 0; j < n; ++j) acc += s[static_cast<std::size_t>(i) * n + j] * V[static_cast<std::size_t>(j) * d + c];
  O[static_cast<std::size_t>(i) * d + c] = acc;
}

void attention(const float* Q, const float* K, const float* V, float* O, int n, int d) {
  static float* s = nullptr;
  static std::size_t capacity = 0;
  const std::size_t need = static_cast<std::size_t>(n) * n;
  if (need > capacity) {
    cudaFree(s);
    cudaMalloc(&s, need * sizeof(float));
    capacity = need;
  }
  const dim3 block(32, 8);
  scores_kernel<<<dim3((n + 31) / 32, (n + 7) / 8), block>>>(Q, K, s, n, d);
  softmax_kernel<<<(n + 7) / 8, 256>>>(s, n);
  output_kernel<<<dim3((d + 31) / 32, (n + 7) / 8), block>>>(s, V, O, n, d);
}

}  // namespace student
