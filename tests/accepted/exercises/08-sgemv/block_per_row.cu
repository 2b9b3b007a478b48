// Accepted: a block of 128 threads per row, coalesced like a warp per row (consecutive threads,
// consecutive columns), the threads' sums combined by a tree in shared memory.
#include "sgemv.cuh"

namespace student {

__global__ void sgemv_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                             int rows, int cols) {
  __shared__ float partial[128];
  const int r = blockIdx.x;
  auto row = A + static_cast<long long>(r) * cols;
  float s = 0.0f;
#pragma unroll 4
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += row[c] * x[c];  // 4 loads in flight
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[r] = partial[0];
}

void sgemv(const float* A, const float* x, float* y, int rows, int cols) {
  if (rows == 0) return;
  sgemv_kernel<<<rows, 128>>>(A, x, y, rows, cols);
}

}  // namespace student
