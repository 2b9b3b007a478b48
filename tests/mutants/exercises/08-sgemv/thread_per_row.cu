// Planted bug: correct, but a thread per row: the 32 lanes of a warp read one element of each of
// 32 rows at every step, 32 sectors per request where 4 would do (uncoalesced).
// expect: (not coalesced|is right but runs at)
#include "sgemv.cuh"

namespace student {

__global__ void sgemv_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                             int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  auto row = A + static_cast<long long>(r) * cols;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += row[c] * x[c];
  y[r] = s;
}

void sgemv(const float* A, const float* x, float* y, int rows, int cols) {
  if (rows == 0) return;
  const int threads = 256;
  sgemv_kernel<<<(rows + threads - 1) / threads, threads>>>(A, x, y, rows, cols);
}

}  // namespace student
