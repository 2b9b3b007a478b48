// Exercise 16: int8 quantization and a weight-only int8 GEMV. This is your file: fill in the
// TODOs, then grade it with
//   bash cmake/workbook.sh grade x16
// The task is exercises/16-int8-quant/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "int8_quant.cuh"

#include <cmath>
#include <cstdint>

namespace student {

constexpr int kThreads = 256;  // threads per block: 8 warps (choose your own)

//! [quantize]
__global__ void quantize_kernel(const float* __restrict__ x, std::int8_t* __restrict__ q, float* __restrict__ scale,
                                int rows, int cols, float clip) {
  // TODO: a warp per row (row = global thread index / 32, lane = threadIdx.x % 32):
  //       1. m = the largest |x[row][c]| over the row (each lane its columns c = lane, lane + 32,
  //          ..., then the warp's maximum with shuffles), then m = fminf(m, clip);
  //       2. lane 0 writes scale[row] = m / 127;
  //       3. every lane writes its q[row][c]: 0 when m is 0; otherwise x * (127 / m), clamped
  //          to [-127, 127] while still a float, then rounded to nearest even (rintf or
  //          __float2int_rn).
}
//! [quantize]

//! [gemv]
__global__ void int8_gemv_kernel(const std::int8_t* __restrict__ W, const float* __restrict__ scale,
                                 const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  // TODO: a warp per row, as in exercise 08: each lane adds float(W[row][c]) * x[c] over its
  //       columns c = lane, lane + 32, ...; the warp's sum (shuffles); lane 0 writes
  //       y[row] = scale[row] * sum.
}
//! [gemv]

//! [launch]
void quantize_rows(const float* x, std::int8_t* q, float* scale, int rows, int cols, float clip) {
  // TODO: a warp for every row (8 rows per block of 256 threads); none when rows is 0.
  const int blocks = 1;
  quantize_kernel<<<blocks, kThreads>>>(x, q, scale, rows, cols, clip);
}

void int8_gemv(const std::int8_t* W, const float* scale, const float* x, float* y, int rows, int cols) {
  // TODO: a warp for every row; none when rows is 0.
  const int blocks = 1;
  int8_gemv_kernel<<<blocks, kThreads>>>(W, scale, x, y, rows, cols);
}
//! [launch]

}  // namespace student
