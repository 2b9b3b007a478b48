// Chapter 03: memory coalescing. This is your file: fill in the TODOs, then grade it with
//   bash cmake/workbook.sh grade 03
// The lesson is chapters/03-coalescing/README.md. Passing needs more than the right answer:
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
// every warp's loads AND stores must be coalesced.
#include "transpose.cuh"

namespace student {

constexpr int kTile = 32;      // a kTile × kTile tile of the matrix per block
constexpr int kBlockRows = 4;  // a block is kTile × kBlockRows threads: each thread moves kTile / kBlockRows elements

//! [kernel]
__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  // TODO: stage the block's tile in shared memory (pad it by one column), so that both the read
  //       of `in` and the write of `out` walk along rows with threadIdx.x. Mind the edges: rows
  //       and cols need not be multiples of kTile.
}
//! [kernel]

//! [launcher]
void transpose(const float* in, float* out, int rows, int cols) {
  if (rows == 0 || cols == 0) return;
  const dim3 block(kTile, kBlockRows);
  const dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);  // one block per tile of `in`
  transpose_kernel<<<grid, block>>>(in, out, rows, cols);
}
//! [launcher]

}  // namespace student
