// Accepted: a smaller design. 64 x 64 tiles of C per block of 16 x 16 threads, K in slices of 16,
// one copy of the slices in shared memory (two barriers per slice), scalar loads from global
// memory with a bounds check on each, and 4 x 4 outputs per thread read from shared memory as
// float4s.
#include "sgemm.cuh"

namespace student {

constexpr int kT = 64, kS = 16;

__global__ void sgemm_64(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                         int K) {
  __shared__ __align__(16) float at[kS][kT];  // at[k][i] = A[row0 + i][k0 + k]
  __shared__ __align__(16) float bt[kS][kT];  // bt[k][j] = B[k0 + k][col0 + j]
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
  const int row0 = blockIdx.y * kT, col0 = blockIdx.x * kT;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += kS) {
    for (int e = t; e < kS * kT; e += 256) {
      const int i = e / kS, k = e % kS;  // A: consecutive threads read consecutive k of a row
      at[k][i] = row0 + i < M && k0 + k < K ? A[(long long)(row0 + i) * K + k0 + k] : 0.0f;
      const int kb = e / kT, j = e % kT;  // B: consecutive threads read consecutive columns
      bt[kb][j] = k0 + kb < K && col0 + j < N ? B[(long long)(k0 + kb) * N + col0 + j] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < kS; ++k) {
      const float4 a = reinterpret_cast<const float4*>(at[k])[ty];
      const float4 b = reinterpret_cast<const float4*>(bt[k])[tx];
      const float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      const int r = row0 + ty * 4 + i, c = col0 + tx * 4 + j;
      if (r < M && c < N) C[(long long)r * N + c] = acc[i][j];
    }
}

void sgemm(const float* A, const float* B, float* C, int M, int N, int K) {
  if (M == 0 || N == 0) return;
  sgemm_64<<<dim3((N + kT - 1) / kT, (M + kT - 1) / kT), dim3(16, 16)>>>(A, B, C, M, N, K);
}

}  // namespace student
