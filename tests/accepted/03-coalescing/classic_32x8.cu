// Accepted variant: the textbook shape, a 32 x 33 tile moved by 32 x 8 threads (4 elements each),
// with the edge checks folded into the tile's own bounds.
#include "transpose.cuh"

namespace student {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int r0 = blockIdx.y * kTile, c0 = blockIdx.x * kTile;
  const int tile_rows = min(kTile, rows - r0), tile_cols = min(kTile, cols - c0);
  for (int dr = threadIdx.y; dr < tile_rows; dr += kBlockRows)
    if (threadIdx.x < tile_cols) tile[dr][threadIdx.x] = in[static_cast<long long>(r0 + dr) * cols + c0 + threadIdx.x];
  __syncthreads();
  for (int dc = threadIdx.y; dc < tile_cols; dc += kBlockRows)
    if (threadIdx.x < tile_rows) out[static_cast<long long>(c0 + dc) * rows + r0 + threadIdx.x] = tile[threadIdx.x][dc];
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows == 0 || cols == 0) return;
  const dim3 block(kTile, kBlockRows);
  const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}

}  // namespace student
