// Planted bug: each thread moves one element instead of looping over the tile's rows: with
// 32 x 8 blocks, three quarters of every tile are never moved.
// expect: (never written|no element of out)
#include "transpose.cuh"

namespace student {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int c = blockIdx.x * kTile + threadIdx.x;
  const int r = blockIdx.y * kTile + threadIdx.y;
  if (r < rows && c < cols) tile[threadIdx.y][threadIdx.x] = in[static_cast<long long>(r) * cols + c];
  __syncthreads();
  const int orow = blockIdx.x * kTile + threadIdx.y, ocol = blockIdx.y * kTile + threadIdx.x;
  if (orow < cols && ocol < rows) out[static_cast<long long>(orow) * rows + ocol] = tile[threadIdx.x][threadIdx.y];
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows == 0 || cols == 0) return;
  const dim3 block(kTile, kBlockRows);
  const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}

}  // namespace student
