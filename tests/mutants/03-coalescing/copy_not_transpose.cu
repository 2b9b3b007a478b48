// Planted bug: the tile is written back untransposed: out gets in's layout.
// expect: (copy of in, not its transpose|wrong elements)
#include "transpose.cuh"

namespace student {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int c = blockIdx.x * kTile + threadIdx.x;
  for (int dr = threadIdx.y; dr < kTile; dr += kBlockRows) {
    const int r = blockIdx.y * kTile + dr;
    if (r < rows && c < cols) out[static_cast<long long>(r) * cols + c] = in[static_cast<long long>(r) * cols + c];
  }
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows == 0 || cols == 0) return;
  const dim3 block(kTile, kBlockRows);
  const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}

}  // namespace student
