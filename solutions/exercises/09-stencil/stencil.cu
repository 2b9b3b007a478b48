// Exercise 09, reference solution: a 2-D 5-point stencil with halo tiles in shared memory.
// Each block computes a kTileY x kTileX tile of out. It first copies the tile of in plus a halo
// one cell wide on every side into shared memory (cells outside the grid as 0: the boundary rule
// costs nothing after that), waits for the whole tile, then each thread computes kTileY / kThreadsY
// cells of one column from shared memory. Every cell of in is read from memory by one block; the
// halo's cells, shared with the neighbouring tiles, come mostly from L2.
#include "stencil.cuh"

#include <cstdint>

namespace solution {

// ---- kernels ----
//! [kernel]
// Threads (kTileX, kThreadsY); tile (kTileY, kTileX) of out; shared (kTileY + 2, kTileX + 2).
template <int kTileX, int kTileY, int kThreadsY>
__global__ void __launch_bounds__(kTileX * kThreadsY)
    stencil5_kernel(const float* __restrict__ in, float* __restrict__ out, int height, int width, float center,
                    float side) {
  __shared__ float tile[kTileY + 2][kTileX + 2];  // tile[ly][lx] is in[y0 + ly - 1][x0 + lx - 1]
  const int x0 = blockIdx.x * kTileX, y0 = blockIdx.y * kTileY;

  // The tile and its halo, row by row: consecutive threads, consecutive cells of a row (coalesced).
  constexpr int kThreads = kTileX * kThreadsY, kCells = (kTileY + 2) * (kTileX + 2);
  for (int k = threadIdx.y * kTileX + threadIdx.x; k < kCells; k += kThreads) {
    const int ly = k / (kTileX + 2), lx = k % (kTileX + 2);
    const int y = y0 + ly - 1, x = x0 + lx - 1;
    const bool inside = y >= 0 && y < height && x >= 0 && x < width;
    tile[ly][lx] = inside ? in[std::int64_t(y) * width + x] : 0.0f;  // outside the grid counts as 0
  }
  __syncthreads();  // every cell of the tile is loaded before any thread reads its neighbours

  const int lx = threadIdx.x + 1, x = x0 + threadIdx.x;
#pragma unroll
  for (int ly = threadIdx.y + 1; ly <= kTileY; ly += kThreadsY) {
    const int y = y0 + ly - 1;
    if (y < height && x < width)
      out[std::int64_t(y) * width + x] =
          center * tile[ly][lx] + side * ((tile[ly - 1][lx] + tile[ly + 1][lx]) + (tile[ly][lx - 1] + tile[ly][lx + 1]));
  }
}
//! [kernel]

// ---- launcher ----
//! [launch]
void stencil5(const float* in, float* out, int height, int width, float center, float side) {
  // 32 x 32 tiles (a warp per tile row: 128 contiguous bytes), 256 threads computing 4 rows each.
  constexpr int kTileX = 32, kTileY = 32, kThreadsY = 8;
  const dim3 block(kTileX, kThreadsY);
  const dim3 grid((width + kTileX - 1) / kTileX, (height + kTileY - 1) / kTileY);
  stencil5_kernel<kTileX, kTileY, kThreadsY><<<grid, block>>>(in, out, height, width, center, side);
}
//! [launch]

}  // namespace solution
