// Planted bug: the edge checks compare with the tile count instead of the sizes, so partial
// tiles at the bottom and right edges read and write past the matrix.
// expect: (outside out was written|only elements in the partial tiles|wrong elements)
#include "transpose.cuh"

namespace student {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  int c = blockIdx.x * kTile + threadIdx.x;
  const int rows_padded = (rows + kTile - 1) / kTile * kTile, cols_padded = (cols + kTile - 1) / kTile * kTile;
  for (int dr = threadIdx.y; dr < kTile; dr += kBlockRows) {
    const int r = blockIdx.y * kTile + dr;
    if (r < rows_padded && c < cols_padded) tile[dr][threadIdx.x] = (r < rows && c < cols) ? in[static_cast<long long>(r) * cols + c] : 0.0f;
  }
  __syncthreads();
  const int r = blockIdx.y * kTile + threadIdx.x;
  for (int dc = threadIdx.y; dc < kTile; dc += kBlockRows) {
    c = blockIdx.x * kTile + dc;
    if (c < cols_padded && r < rows_padded) out[static_cast<long long>(c) * rows + r] = tile[threadIdx.x][dc];
  }
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows == 0 || cols == 0) return;
  const dim3 block(kTile, kBlockRows);
  const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}

}  // namespace student
