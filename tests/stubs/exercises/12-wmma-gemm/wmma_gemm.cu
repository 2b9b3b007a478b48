// Exercise 12: a GEMM on the tensor cores with WMMA. This is your file: fill in the TODOs, then
// grade it (on a GPU: the CPU backend has no tensor cores) with
//   bash cmake/workbook.sh grade x12
// The task is exercises/12-wmma-gemm/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "wmma_gemm.cuh"

#include <mma.h>

namespace student {

using namespace nvcuda;

//! [kernel]
// One warp computes one 16 x 16 tile of C: tile (tile_row, tile_col) is C[16 tile_row .. +15][16 tile_col .. +15].
__global__ void wmma_gemm_kernel(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C,
                                 int M, int N, int K) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tile_row = warp / (N / 16), tile_col = warp % (N / 16);
  if (tile_row >= M / 16 || tile_col >= N / 16) return;  // the whole warp: WMMA calls need all 32 lanes
  // TODO: 1. declare an accumulator fragment (wmma::accumulator, 16, 16, 16, float) and set it to 0;
  //       2. for k from 0 to K in steps of 16: load the 16 x 16 tile of A at (16 tile_row, k) and
  //          the tile of B at (k, 16 tile_col) into matrix_a and matrix_b fragments (row-major;
  //          the leading dimension is the matrix's row length), and multiply-accumulate;
  //       3. store the accumulator at C's tile (row-major, leading dimension N).
}
//! [kernel]

//! [launch]
void wmma_gemm(const __half* A, const __half* B, float* C, int M, int N, int K) {
  // TODO: a warp for every 16 x 16 tile of C: (M / 16) x (N / 16) warps.
  const int threads = 128, blocks = 1;
  wmma_gemm_kernel<<<blocks, threads>>>(A, B, C, M, N, K);
}
//! [launch]

}  // namespace student
