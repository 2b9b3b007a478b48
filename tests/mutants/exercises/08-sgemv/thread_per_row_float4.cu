// Planted bug: correct, but a thread per row, with float4 loads: at every step the 32 lanes of a
// warp read 16 bytes of each of 32 rows (32 sectors where 16 would do) on the same line as a
// broadcast of x (1 sector where 16 would do): summed over the line the two look coalesced (97 %),
// but each request of A is not.
// expect: (not coalesced: loads at line [0-9]+|is right but runs at)
#include "sgemv.cuh"

#include <cstdint>

namespace student {

__global__ void sgemv4_kernel(const float4* __restrict__ A, const float4* __restrict__ x, float* __restrict__ y,
                              int rows, int n) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float4* row = A + static_cast<long long>(r) * n;
  float s = 0.0f;
  for (int c = 0; c < n; ++c) {
    const float4 a = row[c], b = x[c];
    s += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
  }
  y[r] = s;
}

__global__ void sgemv_kernel(const float* __restrict__ A, const float* __restrict__ x, float* __restrict__ y,
                             int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const float* row = A + static_cast<long long>(r) * cols;
  float s = 0.0f;
  for (int c = 0; c < cols; ++c) s += row[c] * x[c];
  y[r] = s;
}

void sgemv(const float* A, const float* x, float* y, int rows, int cols) {
  if (rows == 0) return;
  const int threads = 256, blocks = (rows + threads - 1) / threads;
  if (cols % 4 == 0 && reinterpret_cast<std::uintptr_t>(A) % 16 == 0 && reinterpret_cast<std::uintptr_t>(x) % 16 == 0)
    sgemv4_kernel<<<blocks, threads>>>(reinterpret_cast<const float4*>(A), reinterpret_cast<const float4*>(x), y,
                                       rows, cols / 4);
  else
    sgemv_kernel<<<blocks, threads>>>(A, x, y, rows, cols);
}

}  // namespace student
