// Exercise 09: a 2-D 5-point stencil with halo tiles. This is your file: fill in the TODOs, then
// grade it with
//   bash cmake/workbook.sh grade x09
// The task is exercises/09-stencil/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "stencil.cuh"

namespace student {

constexpr int kTile = 16;  // a block of kTile x kTile threads computes a kTile x kTile tile of out

//! [kernel]
__global__ void stencil5_kernel(const float* __restrict__ in, float* __restrict__ out, int height, int width,
                                float center, float side) {
  // TODO: 1. declare the block's tile in shared memory, with a halo one cell wide on every side:
  //          __shared__ float tile[kTile + 2][kTile + 2];
  //       2. copy the tile's cells of in, and its halo, into it (0 for a cell outside the grid);
  //       3. wait until the whole tile is loaded;
  //       4. each thread computes its cell of out from the tile (if the cell is inside the grid).
}
//! [kernel]

//! [launch]
void stencil5(const float* in, float* out, int height, int width, float center, float side) {
  // TODO: a block for every tile: enough blocks in x and in y to cover width x height.
  const dim3 block(kTile, kTile), grid(1, 1);
  stencil5_kernel<<<grid, block>>>(in, out, height, width, center, side);
}
//! [launch]

}  // namespace student
