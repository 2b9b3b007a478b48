// Planted bug: the results are right, and rows of up to 256 columns get a warp each, combined with
// shuffles; but a longer row gets a whole block of 8 warps, whose partial results are combined
// through a __shared__ array and __syncthreads(): the exercise's rule broken on long rows only.
// expect: used shared memory \([0-9]+ bytes of __shared__ arrays\)
// cpu-only: a GPU shows a launch's dynamic shared memory only, not its __shared__ arrays; the CPU backend sees both
#include "warp_reduce.cuh"

#include <cmath>

namespace student {

__device__ float warp_max(float v) {
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// A warp per row.
__global__ void short_rows(const float* in, int rows, int cols, float* row_max, float* row_sum, float* out) {
  const int lane = threadIdx.x % 32, r = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (r >= rows) return;
  const float* row = in + static_cast<long long>(r) * cols;
  float m = -INFINITY, s = 0.0f;
  for (int c = lane; c < cols; c += 32) {
    m = fmaxf(m, row[c]);
    s += row[c];
  }
  m = warp_max(m);
  s = warp_sum(s);
  if (lane == 0) {
    row_max[r] = m;
    row_sum[r] = s;
  }
  for (int c = lane; c < cols; c += 32) out[static_cast<long long>(r) * cols + c] = row[c] - m;
}

// A block of 8 warps per row: each warp reduces its share, the 8 results meet in shared memory.
__global__ void long_rows(const float* in, int cols, float* row_max, float* row_sum, float* out) {
  __shared__ float part_max[8], part_sum[8];
  const int r = blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const float* row = in + static_cast<long long>(r) * cols;
  float m = -INFINITY, s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) {
    m = fmaxf(m, row[c]);
    s += row[c];
  }
  m = warp_max(m);
  s = warp_sum(s);
  if (lane == 0) {
    part_max[warp] = m;
    part_sum[warp] = s;
  }
  __syncthreads();
  m = part_max[0];
  s = part_sum[0];
  for (int w = 1; w < 8; ++w) {
    m = fmaxf(m, part_max[w]);
    s += part_sum[w];
  }
  if (threadIdx.x == 0) {
    row_max[r] = m;
    row_sum[r] = s;
  }
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[static_cast<long long>(r) * cols + c] = row[c] - m;
}

void row_max_sum(const float* in, int rows, int cols, float* row_max, float* row_sum, float* out) {
  if (rows == 0) return;
  if (cols <= 256)
    short_rows<<<(rows + 7) / 8, 256>>>(in, rows, cols, row_max, row_sum, out);
  else
    long_rows<<<rows, 256>>>(in, cols, row_max, row_sum, out);
}

}  // namespace student
