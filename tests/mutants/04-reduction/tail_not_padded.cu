// Planted bug: the tree assumes a power-of-two block: it starts at the next power of two and
// reads slots past the last thread, which nothing wrote.
// expect: (NaN|too large|short|race)
// cpu-only: a GPU often hands a block shared memory that holds zeros, so the sum comes out right by luck; the CPU backend poisons it with NaN
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
  unsigned p = 1;
  while (p < blockDim.x) p *= 2;
  for (unsigned s = p / 2; s > 0; s /= 2) {
    if (threadIdx.x < s && threadIdx.x + s < p) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, partial[0]);
}

void reduce_sum_launch(const float* in, float* sum, std::int64_t n, int threads) {
  cudaMemsetAsync(sum, 0, sizeof(float));
  if (n == 0) return;
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const std::int64_t blocks = std::min<std::int64_t>(std::int64_t(sms) * std::max(1, 2048 / threads), (n + threads - 1) / threads);
  unsigned p = 1;
  while (p < unsigned(threads)) p *= 2;  // shared memory for the padded size, never written past blockDim.x
  reduce_sum_kernel<<<static_cast<int>(blocks), threads, p * sizeof(float)>>>(in, sum, n);
}

void reduce_sum(const float* in, float* sum, std::int64_t n) {
  reduce_sum_launch(in, sum, n, 256);
}

}  // namespace student
