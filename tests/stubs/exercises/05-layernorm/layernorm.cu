// Exercise 05: layer normalisation, forward. This is your file: fill in the TODOs, then grade it with
//   bash cmake/workbook.sh grade x05
// The task is exercises/05-layernorm/README.md.
// Keep the `//! [name]` lines: they mark what the page shows of this file (the docs need them).
#include "layernorm.cuh"

namespace student {

constexpr int kThreads = 256;  // threads per block; one block per row here (choose your own)

//! [kernel]
__global__ void layernorm_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                                 const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                                 float* __restrict__ rstd, int rows, int cols, float eps) {
  // TODO: 1. the row's mean and variance, accumulated in float without forming a sum of squares:
  //          Welford's update per element (n, mean, M2), then Chan's formula to combine two
  //          threads' (n, mean, M2); or two passes, the mean first, then the average of (x - mean)^2;
  //       2. one thread writes mean[r] and rstd[r] = 1 / sqrt(variance + eps) (variance: / cols);
  //       3. every element: y[r][c] = (x[r][c] - mean) * rstd * gamma[c] + beta[c].
}
//! [kernel]

//! [launch]
void layernorm(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd, int rows,
               int cols, float eps) {
  // TODO: a block (or a warp) for every row; none when rows is 0.
  const int blocks = 1;
  layernorm_kernel<<<blocks, kThreads>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
}
//! [launch]

}  // namespace student
