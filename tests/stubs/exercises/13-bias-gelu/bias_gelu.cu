// Exercise 13: bias + GELU + residual in one pass. This is your file: fill in the TODOs, then
// grade it with
//   bash cmake/workbook.sh grade x13
// The task is exercises/13-bias-gelu/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "bias_gelu.cuh"

#include <cmath>
#include <cstdint>

namespace student {

constexpr int kThreads = 256;  // threads per block (choose your own)

//! [kernel]
__global__ void bias_gelu_kernel(const float* __restrict__ x, const float* __restrict__ bias,
                                 const float* __restrict__ resid, float* __restrict__ out, int rows, int cols,
                                 float scale) {
  // TODO: for every element (r, c) of the rows x cols matrix (a grid-stride loop over
  //       i = r * cols + c, or a thread per element):
  //       1. v = x[i] + bias[c]            (the bias belongs to the column, not the row);
  //       2. g = 0.5f * v * (1.0f + erff(v / sqrt(2)))   (the exact GELU, not the tanh one);
  //       3. out[i] = resid[i] + scale * g.
}
//! [kernel]

//! [launch]
void bias_gelu_residual(const float* x, const float* bias, const float* resid, float* out, int rows, int cols,
                        float scale) {
  // TODO: enough blocks for rows * cols elements (or a grid-stride loop); none when rows is 0.
  const int blocks = 1;
  bias_gelu_kernel<<<blocks, kThreads>>>(x, bias, resid, out, rows, cols, scale);
}
//! [launch]

}  // namespace student
