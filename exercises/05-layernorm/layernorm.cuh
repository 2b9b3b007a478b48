/// \file
/// \brief Exercise 05's interface: layer normalisation (forward) of every row of a row-major
/// matrix, with the rows' means and reciprocal standard deviations. Your version (namespace
/// student) and the solution (namespace solution) both provide it; the grader calls both.
#pragma once

#include <cuda_runtime.h>

namespace student {
/// For every row r of the row-major rows x cols matrix x (element (r, c) is x[r * cols + c]):
///   mean[r] = the average of the row, var = the average of (x - mean[r])^2 (divided by cols),
///   rstd[r] = 1 / sqrt(var + eps),
///   y[r][c] = (x[r][c] - mean[r]) * rstd[r] * gamma[c] + beta[c].
/// gamma and beta have cols elements. All pointers are device memory; x, gamma and beta are not
/// changed; whatever y, mean and rstd held is overwritten. rows >= 0 (0: nothing to do),
/// cols >= 1, eps > 0; the pointers need not be 16-byte aligned. Launch configuration is yours.
void layernorm(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd, int rows,
               int cols, float eps);
}  // namespace student

namespace solution {
/// The reference version of student::layernorm.
void layernorm(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd, int rows,
               int cols, float eps);
}  // namespace solution
