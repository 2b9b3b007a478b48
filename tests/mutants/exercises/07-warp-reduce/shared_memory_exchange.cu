// Planted bug: the results are right, but the lanes exchange their values through (dynamic)
// shared memory and __syncwarp() instead of shuffles: the exercise's one rule broken.
// expect: used shared memory
#include "warp_reduce.cuh"

#include <cmath>

namespace student {

__global__ void row_max_sum_kernel(const float* __restrict__ in, int rows, int cols, float* __restrict__ row_max,
                                   float* __restrict__ row_sum, float* __restrict__ out) {
  extern __shared__ float partial[];  // (warps, 2, 32): each lane's max and sum
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int r = blockIdx.x * (blockDim.x / 32) + warp;
  if (r >= rows) return;  // a whole warp leaves
  const float* row = in + static_cast<long long>(r) * cols;
  float m = -INFINITY, s = 0.0f;
  for (int c = lane; c < cols; c += 32) {
    m = fmaxf(m, row[c]);
    s += row[c];
  }
  float* mine = partial + warp * 64;
  mine[lane] = m;
  mine[32 + lane] = s;
  __syncwarp();
  if (lane == 0) {
    for (int k = 1; k < 32; ++k) {
      m = fmaxf(m, mine[k]);
      s += mine[32 + k];
    }
    mine[0] = m;
    row_max[r] = m;
    row_sum[r] = s;
  }
  __syncwarp();
  m = mine[0];
  for (int c = lane; c < cols; c += 32) out[static_cast<long long>(r) * cols + c] = row[c] - m;
}

void row_max_sum(const float* in, int rows, int cols, float* row_max, float* row_sum, float* out) {
  if (rows == 0) return;
  const int threads = 256, blocks = (rows + 7) / 8;
  row_max_sum_kernel<<<blocks, threads, 8 * 64 * sizeof(float)>>>(in, rows, cols, row_max, row_sum, out);
}

}  // namespace student
