// Planted bug (a slow one): the other naive transpose: writes along rows of out, reads down
// columns of in.
// expect: verdict: too slow: .*(not coalesced|coalesced: a warp)
#include "transpose.cuh"

namespace student {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  const int r = blockIdx.y * kTile + threadIdx.x;  // threadIdx.x runs down a column of in
  for (int dc = threadIdx.y; dc < kTile; dc += kBlockRows) {
    const int c = blockIdx.x * kTile + dc;
    if (r < rows && c < cols) out[static_cast<long long>(c) * rows + r] = in[static_cast<long long>(r) * cols + c];
  }
}

void transpose(const float* in, float* out, int rows, int cols) {
  if (rows == 0 || cols == 0) return;
  const dim3 block(kTile, kBlockRows);
  const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}

}  // namespace student
