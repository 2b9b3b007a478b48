// Planted bug: correct, but a thread per output reading its row of A and column of B straight from
// global memory: every float is fetched again for each output that uses it (no tiles).
// expect: (serves only [0-9.]+ multiply-adds per float fetched|is right but runs at)
#include "sgemm.cuh"

namespace student {

__global__ void sgemm_naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= M || j >= N) return;
  float s = 0.0f;
  for (int k = 0; k < K; ++k) s += A[(long long)i * K + k] * B[(long long)k * N + j];
  C[(long long)i * N + j] = s;
}

void sgemm(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M == 0 || N == 0) return;
  const dim3 block(32, 8);
  sgemm_naive<<<dim3((N + 31) / 32, (M + 7) / 8), block>>>(A, B, C, M, N, K);
}

}  // namespace student
