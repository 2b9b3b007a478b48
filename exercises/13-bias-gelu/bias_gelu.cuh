/// \file
/// \brief Exercise 13's interface: bias, GELU (the exact one, with erf), scale and a residual
/// in one pass over memory. Your version (namespace student) and the solution (namespace
/// solution) both provide it; the grader calls both.
#pragma once

#include <cuda_runtime.h>

namespace student {
/// out[r][c] = resid[r][c] + scale * gelu(x[r][c] + bias[c]) for row-major rows x cols matrices
/// x, resid and out (element (r, c) is x[r * cols + c]) and a bias of cols elements, where
/// gelu(v) = v * Phi(v) = 0.5 * v * (1 + erf(v / sqrt(2))), the exact GELU (not the tanh
/// approximation). All pointers are device memory, out a different array from the inputs;
/// x, bias and resid are not changed; whatever out held is overwritten. rows >= 0 (0: nothing
/// to do), cols >= 1; the pointers need not be 16-byte aligned. Launch configuration is yours.
void bias_gelu_residual(const float* x, const float* bias, const float* resid, float* out, int rows, int cols,
                        float scale);
}  // namespace student

namespace solution {
/// The reference version of student::bias_gelu_residual.
void bias_gelu_residual(const float* x, const float* bias, const float* resid, float* out, int rows, int cols,
                        float scale);
}  // namespace solution
