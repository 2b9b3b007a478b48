// Accepted: the stub completed. One warp per 16 x 16 tile of C, its fragments loaded straight from
// global memory (no shared memory): each element of A and B is read N / 16 and M / 16 times.
#include "wmma_gemm.cuh"

#include <mma.h>

namespace student {

using namespace nvcuda;

__global__ void wmma_gemm_kernel(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C,
                                 int M, int N, int K) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tile_row = warp / (N / 16), tile_col = warp % (N / 16);
  if (tile_row >= M / 16 || tile_col >= N / 16) return;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::load_matrix_sync(a, A + static_cast<long long>(tile_row) * 16 * K + k, K);
    wmma::load_matrix_sync(b, B + static_cast<long long>(k) * N + tile_col * 16, N);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(C + static_cast<long long>(tile_row) * 16 * N + tile_col * 16, acc, N, wmma::mem_row_major);
}

void wmma_gemm(const __half* A, const __half* B, float* C, int M, int N, int K) {
  const long long warps = static_cast<long long>(M / 16) * (N / 16);
  const int threads = 128;
  wmma_gemm_kernel<<<static_cast<unsigned>((warps * 32 + threads - 1) / threads), threads>>>(A, B, C, M, N, K);
}

}  // namespace student
