// Planted bug: no __syncthreads() between the tree's levels: a thread reads its partner's slot
// before the partner has added into it.
// expect: (race|short|too large|NaN|about 1/)
#include "reduce.cuh"

#include <algorithm>

namespace student {

__global__ void reduce_sum_kernel(const float* __restrict__ in, float* __restrict__ sum, std::int64_t n) {
  extern __shared__ float partial[];
  float acc = 0.0f;
  const std::int64_t stride = std::int64_t(blockDim.x) * gridDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) acc += in[i];
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (unsigned active = blockDim.x; active > 1;) {
    const unsigned half = (active + 1) / 2;
    if (threadIdx.x < active - half) partial[threadIdx.x] += partial[threadIdx.x + half];
    active = half;
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

void reduce_sum_launch(const float* in, float* sum, std::int64_t n, int threads) {
  cudaMemsetAsync(sum, 0, sizeof(float));
  if (n == 0) return;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const std::int64_t blocks = std::min<std::int64_t>(std::int64_t(sms) * std::max(1, 2048 / threads), (n + threads - 1) / threads);
  reduce_sum_kernel<<<static_cast<int>(blocks), threads, threads * sizeof(float)>>>(in, sum, n);
}

void reduce_sum(const float* in, float* sum, std::int64_t n) {
  reduce_sum_launch(in, sum, n, 256);
}

}  // namespace student
