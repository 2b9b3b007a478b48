// Accepted variant: a 64 x 65 tile moved by 64 x 8 threads (8 elements each): two warps per tile
// row, still one 128-byte row segment per warp request.
#include "transpose.cuh"

namespace student {

constexpr int kTile = 64;
constexpr int kBlockRows = 8;

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];  // +1 column: a column read hits 32 different banks
  int c = blockIdx.x * kTile + threadIdx.x;
  for (int dr = threadIdx.y; dr < kTile; dr += kBlockRows) {
    const int r = blockIdx.y * kTile + dr;
    if (r < rows && c < cols) tile[dr][threadIdx.x] = in[static_cast<long long>(r) * cols + c];
  }
  __syncthreads();
  const int r = blockIdx.y * kTile + threadIdx.x;
  for (int dc = threadIdx.y; dc < kTile; dc += kBlockRows) {
    c = blockIdx.x * kTile + dc;
    if (c < cols && r < rows) out[static_cast<long long>(c) * rows + r] = tile[threadIdx.x][dc];
  }
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows == 0 || cols == 0) return;
  const dim3 block(kTile, kBlockRows);
  const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}

}  // namespace student
